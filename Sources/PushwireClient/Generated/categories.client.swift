// generated — do not edit. Source: Protos/pushwire/v1/categories.proto. Regenerate with Scripts/generate.

import PushwireWire

/// A typed client of `pushwire.v1.Categories` over any `UnaryCaller`.
///
/// Manages an application's categories. Every method needs the application's access token
/// (`authorization: Bearer <token>`). Every change bumps the application's categories version.
public struct CategoriesClient<Caller: UnaryCaller>: Sendable {
    /// What the calls go through: a connection or a pool.
    public let caller: Caller

    /// Creates a client that calls through `caller`.
    public init(caller: Caller) {
        self.caller = caller
    }

    /// Creates a category (category_id 0) or replaces an existing one (category_id set).
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func upsertCategory(_ request: UpsertCategoryRequest, options: CallOptions = CallOptions()) async throws -> UpsertCategoryResponse {
        try await caller.call(Methods.Categories.upsertCategory, request, options: options)
    }

    /// Deletes a category. Messages already sent with it keep their statistics.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func deleteCategory(_ request: DeleteCategoryRequest, options: CallOptions = CallOptions()) async throws -> DeleteCategoryResponse {
        try await caller.call(Methods.Categories.deleteCategory, request, options: options)
    }

    /// Lists the application's categories, in category_id order.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func listCategories(_ request: ListCategoriesRequest, options: CallOptions = CallOptions()) async throws -> ListCategoriesResponse {
        try await caller.call(Methods.Categories.listCategories, request, options: options)
    }
}

extension UnaryCaller {
    /// The `pushwire.v1.Categories` methods, called through this caller.
    public var categories: CategoriesClient<Self> { CategoriesClient(caller: self) }
}
