import FlintServer

extension OutsideCallLimits {
    /// Bounds for a local fake that shares two cores with the whole suite (Chromium included): production's bounds
    /// (10 s to connect, 30 s per request, 15 s per mail reply, 60 s per message, 7 s per blocking function, 5 s per
    /// client metadata document) were once
    /// exceeded there. Tests of the bounds themselves set their own.
    public static let underLoad: OutsideCallLimits = {
        var limits = OutsideCallLimits()
        limits.connectTimeout = .seconds(60)
        limits.requestTimeout = .seconds(120)
        limits.smtpReplyTimeout = .seconds(120)
        limits.smtpMessageTimeout = .seconds(300)
        limits.blockingFunctionTimeout = .seconds(120)
        limits.clientMetadataTimeout = .seconds(60)
        return limits
    }()
}
