import Foundation
import PushwireStore
import PushwireWire

/// `pushwire.v1.Admin`: applications and their credentials. Every method needs the admin token.
public struct AdminService: Sendable {
    let registry: Registry

    /// Creates the service over the shared registry.
    public init(registry: Registry) { self.registry = registry }

    private static func checkName(_ name: String) throws(RPCError) {
        if name.isEmpty { throw RPCError(.invalidArgument, "name is empty") }
        if name.utf8.count > Limits.maxApplicationNameBytes {
            throw RPCError(.invalidArgument, "name is longer than \(Limits.maxApplicationNameBytes) bytes")
        }
    }

    /// Creates an application with the YesNo category; returns its code and access token (the
    /// token is shown only here).
    public func createApplication(_ request: CreateApplicationRequest, caller: Caller) async throws(RPCError) -> CreateApplicationResponse {
        try registry.authorizeAdmin(caller)
        try AdminService.checkName(request.name)
        let apns = try request.apns.map { settings throws(RPCError) in try WireConversions.apns(settings, currentKey: nil) }
        let fcm = try request.fcm.map { settings throws(RPCError) in try WireConversions.fcm(settings) }
        let token = Credentials.newAccessToken()
        // A code collision is astronomically unlikely (36^10 codes); retry a few times anyway.
        for attempt in 1...5 {
            let record = ApplicationRecord(
                id: 0, code: Credentials.newApplicationCode(), name: request.name, accessTokenHash: SHA256.hash(token),
                apns: apns, fcmServiceAccount: fcm, categoriesVersion: 1, createdAt: Int64(Date().timeIntervalSince1970))
            do {
                let created = try await registry.store.createApplication(record, initialCategories: [CategoryValidation.yesNo])
                registry.directory.install(created)
                await registry.refreshCategories(code: created.code)
                registry.log.action("application created", by: "admin",
                                    ["application": created.code, "name": created.name, "apns": created.apns == nil ? "none" : "set"])
                var response = CreateApplicationResponse()
                response.application = WireConversions.application(created)
                response.accessToken = token
                return response
            } catch {
                if case .conflict = error, attempt < 5 { continue }
                throw error.rpcError
            }
        }
        throw RPCError(.internalError, "could not allocate an application code")
    }

    /// Renames, replaces or clears APNs or FCM settings, or rotates the access token.
    public func updateApplication(_ request: UpdateApplicationRequest, caller: Caller) async throws(RPCError) -> UpdateApplicationResponse {
        try registry.authorizeAdmin(caller)
        let current = try registry.application(code: request.application)
        var update = ApplicationUpdate()
        if !request.name.isEmpty {
            try AdminService.checkName(request.name)
            update.name = request.name
        }
        if request.clearApns {
            if request.apns != nil { throw RPCError(.invalidArgument, "apns and clear_apns cannot both be set") }
            update.apns = .some(nil)
        } else if let settings = request.apns {
            update.apns = .some(try WireConversions.apns(settings, currentKey: current.apns?.privateKeyP8))
        }
        if request.clearFcm {
            if request.fcm != nil { throw RPCError(.invalidArgument, "fcm and clear_fcm cannot both be set") }
            update.fcmServiceAccount = .some(nil)
        } else if let settings = request.fcm {
            update.fcmServiceAccount = .some(try WireConversions.fcm(settings))
        }
        var token = ""
        if request.rotateAccessToken {
            token = Credentials.newAccessToken()
            update.accessTokenHash = SHA256.hash(token)
        }
        let updated = try await storeCall { () async throws(StoreError) in
            try await registry.store.updateApplication(code: request.application, update)
        }
        registry.directory.install(updated)
        var changed: [String] = []
        if update.name != nil { changed.append("name") }
        if request.clearApns { changed.append("apns cleared") } else if request.apns != nil { changed.append("apns") }
        if request.rotateAccessToken { changed.append("access token rotated") }
        registry.log.action(request.rotateAccessToken ? "application updated; access token rotated" : "application updated", by: "admin",
                            ["application": updated.code, "changed": changed.joined(separator: ", ")])
        var response = UpdateApplicationResponse()
        response.application = WireConversions.application(registry.directory.application(code: updated.code) ?? updated)
        response.accessToken = token
        return response
    }

    /// Every application, in creation order, without keys or token hashes.
    public func listApplications(_ request: ListApplicationsRequest, caller: Caller) throws(RPCError) -> ListApplicationsResponse {
        try registry.authorizeAdmin(caller)
        var response = ListApplicationsResponse()
        response.applications = registry.directory.all().map(WireConversions.application)
        return response
    }
}
