/// Which push service delivers a device's notifications, by its platform (the Pushwoosh device
/// type codes `RegisterDevice` takes).
public enum PushService: String, Sendable, Equatable, CaseIterable {
    /// Apple's push service: iOS, macOS and Safari (web push on APNs).
    case apns
    /// Firebase Cloud Messaging (HTTP v1): Android.
    case fcm
}

/// The device types Pushwire delivers to, and their push services.
public enum PushPlatform {
    /// Pushwoosh's device type codes.
    public static let iOS: Int32 = 1
    public static let android: Int32 = 3
    public static let macOS: Int32 = 7
    public static let safari: Int32 = 10

    /// The service that delivers to `deviceType`, or nil for a platform Pushwire has no service
    /// for (Windows, Chrome, Huawei, …).
    public static func service(deviceType: Int32) -> PushService? {
        switch deviceType {
        case iOS, macOS, safari: return .apns
        case android: return .fcm
        default: return nil
        }
    }

    /// The platform's name as the file sink writes it: `ios`, `android`, `macos`, `safari`, or
    /// `type<N>` for the others.
    public static func name(deviceType: Int32) -> String {
        switch deviceType {
        case iOS: return "ios"
        case android: return "android"
        case macOS: return "macos"
        case safari: return "safari"
        default: return "type\(deviceType)"
        }
    }

    /// The failure reason of a device whose platform's service the application has no
    /// credentials for: counted, never sent through another service, never marking the device.
    public static let noCredentialsReason = "NoCredentialsForPlatform"
    /// The failure reason of a device whose platform Pushwire has no push service for.
    public static let unsupportedReason = "UnsupportedPlatform"
}
