import PushwireStore
import PushwireWire

/// `pushwire.v1.Categories`: an application's categories, managed with its access token. Every
/// change bumps the application's categories version in the same transaction.
public struct CategoriesService: Sendable {
    let registry: Registry

    /// Creates the service over the shared registry.
    public init(registry: Registry) { self.registry = registry }

    /// Creates (category_id 0) or replaces a category.
    public func upsertCategory(_ request: UpsertCategoryRequest, caller: Caller) async throws(RPCError) -> UpsertCategoryResponse {
        let application = try registry.authorizeApplication(caller)
        guard let category = request.category else { throw RPCError(.invalidArgument, "category is missing") }
        let record = try CategoryValidation.record(category)
        let (stored, version) = try await storeCall { () async throws(StoreError) in
            try await registry.store.upsertCategory(applicationID: application.id, record)
        }
        registry.directory.categoriesChanged(code: application.code, version: version)
        await registry.refreshCategories(code: application.code)
        registry.log.action(record.id == 0 ? "category created" : "category replaced", by: application.code,
                            ["category": String(stored.id), "name": stored.name, "categories_version": String(version)])
        var response = UpsertCategoryResponse()
        response.category = WireConversions.category(stored)
        response.categoriesVersion = version
        return response
    }

    /// Deletes a category of the caller's application.
    public func deleteCategory(_ request: DeleteCategoryRequest, caller: Caller) async throws(RPCError) -> DeleteCategoryResponse {
        let application = try registry.authorizeApplication(caller)
        if request.categoryID == 0 { throw RPCError(.invalidArgument, "category_id is missing") }
        let version = try await storeCall { () async throws(StoreError) in
            try await registry.store.deleteCategory(applicationID: application.id, categoryID: request.categoryID)
        }
        registry.directory.categoriesChanged(code: application.code, version: version)
        await registry.refreshCategories(code: application.code)
        registry.log.action("category deleted", by: application.code,
                            ["category": String(request.categoryID), "categories_version": String(version)])
        var response = DeleteCategoryResponse()
        response.categoriesVersion = version
        return response
    }

    /// `listCategories` on the event loop, from the cache: nil when the categories are not
    /// cached (then `listCategories` answers, in a task).
    public func listCategoriesIfCached(_ request: ListCategoriesRequest, caller: Caller) throws(RPCError) -> ListCategoriesResponse? {
        let application = try registry.authorizeApplication(caller)
        guard let (categories, version) = try registry.cachedCategories(code: application.code) else { return nil }
        return Self.listResponse(categories, version)
    }

    /// The caller's application's categories, in category_id order, with their version.
    public func listCategories(_ request: ListCategoriesRequest, caller: Caller) async throws(RPCError) -> ListCategoriesResponse {
        let application = try registry.authorizeApplication(caller)
        let (categories, version) = try await registry.categories(code: application.code)
        return Self.listResponse(categories, version)
    }

    private static func listResponse(_ categories: [Category], _ version: UInt64) -> ListCategoriesResponse {
        var response = ListCategoriesResponse()
        response.categories = categories
        response.categoriesVersion = version
        return response
    }
}
