import FlintWire

/// Mails an account's address when it signs in from a device it has not used before: a project's
/// `auditTrail.newDeviceNotice` (off by default; tenants follow their project, as with the rest of the trail's settings).
///
/// The trail is the memory of devices: a device is a user agent on a network (`DeviceNetwork`), and it is new when none
/// of the account's newest `history` sign-ins and sign-ups came from it. So the sign-up's device is known to the first
/// sign-in, and an account with no such event at all (imported, or quiet for longer than the trail keeps events) is sent
/// nothing: there is no device to compare with, and this one becomes the first. As Firebase sends its security notices
/// (an address change), the mail goes to the address on file, verified or not; the per-address email budget bounds how
/// many an address gets, whoever signs in.
///
/// The sign-in never waits for any of it: it is composed in the outbox's background (`EmailOutbox.enqueueComposed`) once
/// the sign-in committed, and a failure is logged.
struct NewDeviceNotices: Sendable {
    let audit: AuditStore
    let outbox: EmailOutbox
    let budgets: BudgetLedger

    /// How many of the account's earlier sign-ins and sign-ups a device is compared with.
    static let history = 200

    /// After `session` began for `user` in a realm with `settings`: queues the notice if the device is new.
    func signedIn(_ user: UserAccount, session: NewSession, settings: ProjectSettings?) {
        guard settings?.auditTrail?.newDeviceNotice == true, let address = user.email, !address.isEmpty else { return }
        // What the sign-in's own event holds; read here, in the request's task.
        let scope = AuditScope.current
        let device = EmailTemplates.SignInDevice(
            time: UserRecord.iso8601(milliseconds: scope?.time ?? 0), ipAddress: scope?.ipAddress, userAgent: scope?.userAgent)
        let sessionID = SessionStore.sessionID(of: session)
        let locale = RequestClient.current.locale
        outbox.enqueueComposed { [audit, outbox, budgets] in
            let filter = AuditFilter(localID: user.localID, types: [.signIn, .signUp])
            let events = try await audit.events(realm: user.projectID, filter, before: nil, limit: Self.history + 1)
            // Only what came before this sign-in's own event: of two sign-ins from one new device at once, the first is
            // mailed (each sees the other's event committed, but only one of them is the earlier).
            let own = events.first { $0.entry.sessionID == sessionID }?.id ?? .max
            let earlier = events.filter { $0.id < own }.prefix(Self.history)
            guard !earlier.isEmpty, !earlier.contains(where: { Self.same(device, as: $0.entry) }) else { return nil }
            try await outbox.refusing(.rateLimit, projectID: user.projectID) {
                try await budgets.spend(.emailsPerAddress, in: user.projectID, for: address)
            }
            let appName = Realm(key: user.projectID).projectID
            let rendered = EmailTemplates.renderNewDeviceNotice(
                locale: locale, email: address, appName: appName, displayName: user.displayName, device: device)
            return EmailMessage(projectID: user.projectID, to: address, senderName: rendered.senderName, subject: rendered.subject,
                                text: rendered.text, html: rendered.html, locale: rendered.locale, kind: .newDeviceNotice)
        }
    }

    /// Whether `entry` came from `device`: the same user agent, from the same network.
    static func same(_ device: EmailTemplates.SignInDevice, as entry: AuditEntry) -> Bool {
        entry.userAgent == device.userAgent && entry.ipAddress.map(DeviceNetwork.of) == device.ipAddress.map(DeviceNetwork.of)
    }
}

/// The network a device signs in from, as the new-device notice compares them: an IPv4 address's /24 and an IPv6
/// address's /64 (`203.0.113.7` and `203.0.113.200` are one network, as a home's or an office's addresses are, and a
/// phone's IPv6 address changes within its /64), so a device's next address on the same network is not a new device.
enum DeviceNetwork {
    /// `203.0.113.0/24`, `2001:db8:1:2::/64`; anything unparsable as given.
    static func of(_ address: String) -> String {
        guard let bytes = ClientAddress.bytes(address) else { return address }
        if bytes.count == 4 { return bytes[0..<3].map(String.init).joined(separator: ".") + ".0/24" }
        return ClientAddress.limitKey(address)
    }
}
