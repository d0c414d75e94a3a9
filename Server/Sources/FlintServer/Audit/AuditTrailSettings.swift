import FlintWire
import Foundation

/// A project's audit trail (the v2 config's `auditTrail`; its tenants' events are the project's): how long events are
/// kept, where they stream, and whether a sign-in from a new device is mailed to the account (`NewDeviceNotices`). Tenants have no settings of their own here: the project's hold for all its realms.
public struct AuditTrailSettings: Codable, Sendable, Equatable {
    /// Days an event is kept before the janitor deletes it.
    public var retentionDays: Int = Self.defaultRetentionDays
    /// The receiver every event is posted to, in order per realm (`AuditStreamer`).
    public var webhookURL: String?
    /// The webhook's signing secret, sealed with the master key (context `webhookSecretContext`).
    public var sealedWebhookSecret: String?
    /// Whether each event is written to the server log as a JSON line, for a SIEM that reads logs.
    public var logEvents = false
    /// Whether a sign-in from a device the account has not used is mailed to its address.
    public var newDeviceNotice = false

    public static let defaultRetentionDays = 90
    static let webhookSecretContext = "audit-webhook-secret"

    public init() {}

    /// Settings stored before a field existed read it as its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        retentionDays = try container.decodeIfPresent(Int.self, forKey: .retentionDays) ?? Self.defaultRetentionDays
        webhookURL = try container.decodeIfPresent(String.self, forKey: .webhookURL)
        sealedWebhookSecret = try container.decodeIfPresent(String.self, forKey: .sealedWebhookSecret)
        logEvents = try container.decodeIfPresent(Bool.self, forKey: .logEvents) ?? false
        newDeviceNotice = try container.decodeIfPresent(Bool.self, forKey: .newDeviceNotice) ?? false
    }

    /// The settings an admin sends, checked; the secret sealed. A change that names no secret keeps the current one.
    static func validated(_ config: ProjectConfig.AuditTrailConfig?, keeping current: AuditTrailSettings?,
                          secrets: SecretBox) throws -> AuditTrailSettings {
        var settings = AuditTrailSettings()
        guard let config else { return settings }
        if let days = config.retentionDays {
            guard (1...3650).contains(days) else { throw FlintError(.invalidArgument, "auditTrail.retentionDays must be 1…3650.") }
            settings.retentionDays = days
        }
        if let url = config.webhookUrl, !url.isEmpty {
            guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http",
                  parsed.host?.isEmpty == false
            else { throw FlintError(.invalidArgument, "auditTrail.webhookUrl must be an http(s) URL.") }
            settings.webhookURL = url
            if let secret = config.webhookSecret, !secret.isEmpty {
                guard secret.utf8.count >= 16 else {
                    throw FlintError(.invalidArgument, "auditTrail.webhookSecret must be at least 16 bytes.")
                }
                settings.sealedWebhookSecret = try secrets.seal(Data(secret.utf8), context: Self.webhookSecretContext)
            } else if let kept = current?.sealedWebhookSecret {
                settings.sealedWebhookSecret = kept
            } else {
                throw FlintError(.invalidArgument, "auditTrail.webhookUrl needs a webhookSecret to sign with.")
            }
        }
        settings.logEvents = config.logEvents ?? false
        settings.newDeviceNotice = config.newDeviceNotice ?? false
        return settings
    }

    /// As the v2 config shows it: never the secret.
    var shown: ProjectConfig.AuditTrailConfig {
        ProjectConfig.AuditTrailConfig(retentionDays: retentionDays, webhookUrl: webhookURL,
                                       webhookSecretSet: webhookURL == nil ? nil : sealedWebhookSecret != nil,
                                       logEvents: logEvents, newDeviceNotice: newDeviceNotice)
    }
}
