import PushwireAPNs
import PushwireDelivery
import PushwireService
import PushwireStore

/// pushwired's gateways (the composition root chooses them, as it chooses the store engine):
/// the file sink at `sinkPath` (`/dev/null`: a `NullGateway`, nothing formatted), and APNs and
/// FCM gateways connecting as `apns` and `fcm` say (`--apns-url`, `--apns-ca-file`, `--fcm-url`,
/// `--fcm-ca-file`: a local double in tests).
/// - Throws: `FileSinkGateway.OpenError` when the sink file cannot be opened.
func makeDeliveryGateways(sinkPath: String, apns: APNsConfiguration, fcm: APNsConfiguration) throws(FileSinkGateway.OpenError) -> DeliveryGateways {
    let sink: any NotificationGateway = sinkPath == MessagesService.discardingSinkPath ? NullGateway() : try FileSinkGateway(path: sinkPath)
    return DeliveryGateways(sink: sink, makeAPNs: { settings in
        guard let credentials = try? APNsCredentials(
            teamID: settings.teamID, keyID: settings.keyID, topic: settings.topic, p8PEM: settings.privateKeyP8,
            environment: settings.environment == 2 ? .production : .sandbox) else { return nil }
        return try? APNsGateway(credentials: credentials, configuration: apns)
    }, makeFCM: { json in
        guard let account = try? FCMServiceAccount(json: json) else { return nil }
        return try? FCMGateway(account: account, configuration: fcm)
    })
}
