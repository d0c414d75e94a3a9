import Foundation
import FlintWire
import Hummingbird

/// The Identity Toolkit v2 project configuration (`GET/PATCH /v2/projects/{p}/config`), as the Admin
/// APIs read and change it. A PATCH applies the fields its `updateMask` names (comma-separated paths;
/// a path also covers every field below it); without a mask, every field present in the body (see `mask(_:for:)`).
struct ProjectConfigService: Sendable {
    let projects: ProjectDirectory
    let accounts: AccountStore
    let limits: PhoneLimits
    let policy: ModePolicy
    let clock: any FlintClock
    /// Seals the audit trail's webhook secret.
    let secrets: SecretBox

    init(core: ServerCore) {
        secrets = core.secrets
        projects = core.projects
        accounts = core.store.accounts
        limits = core.configuration.phoneLimits
        policy = core.policy
        clock = core.clock
    }

    /// The settings the official emulator's configuration consists of: what a PATCH without a mask replaces
    /// under `ModePolicy.configPatchWithoutMaskReplacesEmulatorSettings`.
    private static let emulatorSettingPaths = ["signIn.allowDuplicateEmails", "emailPrivacyConfig.enableImprovedEmailPrivacy",
                                               "blockingFunctions"]

    var endpoints: [Endpoint] {
        let paths = Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/config")
        return [
            .get(paths, access: .admin) { _, caller in Self.config(of: caller.project) },
            Endpoint(method: .patch, paths: paths, contract: EndpointContract(
                credentials: .admin, query: ["updateMask"], request: [.json(ProjectConfig.self)], response: .json(ProjectConfig.self))
            ) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let change = try await JSONBody.decode(ProjectConfig.self, from: request)
                let updated = try await update(
                    caller.project, with: change, mask: mask(request.uri.queryParameters.get("updateMask"), for: change))
                return try JSONBody.response(Self.config(of: updated))
            },
            // What the SDKs check passwords against before sending them (`validatePassword`).
            .get(Endpoint.identityToolkitPaths(version: "v2", "passwordPolicy")) { _, caller in
                PasswordPolicy.response(caller.project.settings.passwordPolicy)
            },
        ]
    }

    /// The fields a PATCH of `change` changes: those the `updateMask` query names; without one, or with an
    /// empty one, those present in `change` and, where the policy says so, the emulator's own settings, which
    /// then fall back to their defaults unless `change` sets them. Only those: `apply` writes a default for a
    /// covered field the body lacks, which for every field would switch sign-in methods off.
    func mask(_ updateMask: String?, for change: ProjectConfig) -> UpdateMask {
        mask(UpdateMask(updateMask ?? ""), for: change)
    }

    func mask(_ named: UpdateMask, for change: ProjectConfig) -> UpdateMask {
        guard named.paths.isEmpty else { return named }
        let emulatorPaths = policy.configPatchWithoutMaskReplacesEmulatorSettings ? Self.emulatorSettingPaths : []
        return UpdateMask(paths: change.presentFieldPaths + emulatorPaths)
    }

    /// Applies the masked fields of `change` to the settings as stored now (see `ProjectDirectory.updateSettings`:
    /// a concurrent change of other fields survives).
    func update(_ project: Project, with change: ProjectConfig, mask: UpdateMask) async throws -> Project {
        try await projects.updateSettings(project.id) { settings in
            try await apply(change, mask: mask, to: &settings, projectID: project.id)
        }
    }

    private func apply(_ change: ProjectConfig, mask: UpdateMask, to settings: inout ProjectSettings, projectID: String)
        async throws {
        if mask.covers("signIn.allowDuplicateEmails") {
            settings.signIn.allowDuplicateEmails = change.signIn?.allowDuplicateEmails ?? false
        }
        if mask.covers("signIn.email.enabled") { settings.signIn.emailPasswordEnabled = change.signIn?.email?.enabled ?? false }
        if mask.covers("signIn.email.passwordRequired") {
            settings.signIn.emailLinkEnabled = !(change.signIn?.email?.passwordRequired ?? true)
        }
        if mask.covers("signIn.anonymous.enabled") { settings.signIn.anonymousEnabled = change.signIn?.anonymous?.enabled ?? false }
        if mask.covers("signIn.phoneNumber.enabled") { settings.signIn.phoneEnabled = change.signIn?.phoneNumber?.enabled ?? false }
        if mask.covers("signIn.phoneNumber.testPhoneNumbers") {
            settings.phone.testNumbers = try await testNumbers(
                change.signIn?.phoneNumber?.testPhoneNumbers ?? [:], previous: settings.phone.testNumbers, projectID: projectID)
        }
        if mask.covers("authorizedDomains") { settings.authorizedDomains = change.authorizedDomains ?? [] }
        if mask.covers("emailPrivacyConfig.enableImprovedEmailPrivacy") {
            settings.improvedEmailPrivacy = change.emailPrivacyConfig?.enableImprovedEmailPrivacy ?? false
        }
        if mask.covers("smsRegionConfig") { settings.phone.regionPolicy = try Self.regionPolicy(change.smsRegionConfig) }
        if mask.covers("smsDefenseConfig.regionDailyCap") {
            let cap = change.smsDefenseConfig?.regionDailyCap
            if let cap, cap < 0 { throw FlintError(.invalidArgument, "smsDefenseConfig.regionDailyCap must be ≥ 0.") }
            settings.phone.regionDailyCap = cap
        }
        if mask.covers("smsDefenseConfig.deniedPrefixes") {
            let prefixes = change.smsDefenseConfig?.deniedPrefixes ?? []
            if let bad = prefixes.first(where: { !$0.hasPrefix("+") || $0.count < 2 || !$0.dropFirst().allSatisfy { "0123456789".contains($0) } }) {
                throw FlintError(.invalidArgument, "smsDefenseConfig.deniedPrefixes: \(bad) is not an E.164 prefix (+ and digits).")
            }
            settings.phone.deniedPrefixes = prefixes
        }
        if mask.covers("appVerification.apnsEnabled") {
            settings.phone.apnsEnabled = change.appVerification?.apnsEnabled ?? true
        }
        if mask.covers("appVerification.required") {
            settings.phone.appVerificationRequired = change.appVerification?.required ?? true
        }
        if mask.covers("appVerification.captcha") {
            let raw = change.appVerification?.captcha ?? ProjectSettings.Phone.Captcha.proofOfWork.rawValue
            guard let captcha = ProjectSettings.Phone.Captcha(rawValue: raw) else {
                throw FlintError(.invalidArgument, "appVerification.captcha must be PROOF_OF_WORK, SITE_VERIFY or DISABLED")
            }
            settings.phone.captcha = captcha
        }
        if mask.covers("appVerification.proofOfWorkBits") {
            let bits = change.appVerification?.proofOfWorkBits ?? ProjectSettings.Phone().proofOfWorkBits
            guard (1...32).contains(bits) else { throw FlintError(.invalidArgument, "appVerification.proofOfWorkBits must be 1…32") }
            settings.phone.proofOfWorkBits = bits
        }
        if mask.covers("apps") {
            settings.apps = try Self.apps(change.apps)
        }
        if mask.covers("oauthServer") { settings.oauthServer = try OAuthServerSettings.validated(change.oauthServer) }
        settings.sessionPolicy = try SessionPolicy.updated(settings.sessionPolicy, with: change.sessionPolicy, mask: mask)
        if mask.covers("auditTrail") {
            settings.auditTrail = try AuditTrailSettings.validated(change.auditTrail, keeping: settings.auditTrail, secrets: secrets)
        }
        try Self.applyMultiFactor(change.mfa, mask: mask, to: &settings.multiFactor)
        try Self.applyBlockingFunctions(change.blockingFunctions, mask: mask, to: &settings.blockingFunctions)
        try applyPasswordPolicy(change.passwordPolicyConfig, mask: mask, to: &settings.passwordPolicy)
        for (field, type, template) in Self.emailTemplates(change.notification?.sendEmail)
        where mask.covers("notification.sendEmail.\(field)") {
            settings.emailTemplates[type.rawValue] = try Self.emailTemplate(template)
        }
    }

    /// Checks a new set of fictional numbers: valid E.164, fixed 6-digit codes, within the allowed count,
    /// and no newly added number already held by a real user.
    func testNumbers(_ numbers: [String: String], previous: [String: String], projectID: String) async throws
        -> [String: String] {
        guard numbers.count <= limits.maxTestNumbers else {
            throw FlintError(.invalidArgument, "At most \(limits.maxTestNumbers) test phone numbers are allowed.")
        }
        var checked: [String: String] = [:]
        for (raw, code) in numbers {
            let number = try Validation.dialledPhoneNumber(raw)
            guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw FlintError(.invalidArgument, "The code of test phone number \(number) must be 6 digits.")
            }
            if previous[number] == nil, try await accounts.user(projectID: projectID, phoneNumber: number) != nil {
                throw FlintError(.invalidArgument, "\(number) belongs to a real user and cannot be a test phone number.")
            }
            checked[number] = code
        }
        return checked
    }

    /// `passwordPolicyConfig`: the enforcement state, the one version's strength options (lengths within Firebase's
    /// bounds) and `forceUpgradeOnSignin`.
    func applyPasswordPolicy(_ config: PasswordPolicyConfig?, mask: UpdateMask, to stored: inout PasswordPolicy?) throws {
        let paths = ["passwordPolicyEnforcementState", "passwordPolicyVersions", "forceUpgradeOnSignin"]
        guard paths.contains(where: { mask.covers("passwordPolicyConfig.\($0)") }) else { return }
        var policy = stored ?? PasswordPolicy()
        if mask.covers("passwordPolicyConfig.passwordPolicyEnforcementState") {
            switch config?.passwordPolicyEnforcementState ?? "OFF" {
            case "ENFORCE": policy.enforced = true
            case "OFF", "PASSWORD_POLICY_ENFORCEMENT_STATE_UNSPECIFIED": policy.enforced = false
            default: throw FlintError(.invalidArgument, "passwordPolicyEnforcementState must be ENFORCE or OFF")
            }
        }
        if mask.covers("passwordPolicyConfig.forceUpgradeOnSignin") { policy.forceUpgradeOnSignIn = config?.forceUpgradeOnSignin ?? false }
        if mask.covers("passwordPolicyConfig.passwordPolicyVersions") {
            let versions = config?.passwordPolicyVersions ?? []
            guard versions.count <= 1 else { throw FlintError(.invalidArgument, "passwordPolicyVersions must have one entry") }
            try policy.setStrength(versions.first?.customStrengthOptions ?? .init())
        }
        policy.updatedAt = clock.milliseconds
        stored = policy
    }

    /// `mfa.state`, `mfa.enabledProviders` (`PHONE_SMS`) and `mfa.providerConfigs` (TOTP).
    static func applyMultiFactor(_ config: ProjectConfig.MultiFactorConfig?, mask: UpdateMask,
                                         to settings: inout ProjectSettings.MultiFactor) throws {
        func isEnabled(_ state: String?, field: String) throws -> Bool {
            switch state ?? "DISABLED" {
            case "ENABLED": return true
            case "DISABLED", "STATE_UNSPECIFIED": return false
            default: throw FlintError(.invalidArgument, "\(field) must be ENABLED or DISABLED")
            }
        }
        if mask.covers("mfa.state") { settings.enabled = try isEnabled(config?.state, field: "mfa.state") }
        if mask.covers("mfa.enabledProviders") {
            let providers = config?.enabledProviders ?? []
            if let unknown = providers.first(where: { $0 != "PHONE_SMS" }) {
                throw FlintError(.invalidArgument, "Unknown mfa.enabledProviders entry \(unknown)")
            }
            settings.phone = providers.contains("PHONE_SMS")
        }
        if mask.covers("mfa.providerConfigs") {
            let totp = config?.providerConfigs?.first { $0.totpProviderConfig != nil }
            settings.totp = try isEnabled(totp?.state, field: "mfa.providerConfigs.state")
            let intervals = totp?.totpProviderConfig?.adjacentIntervals ?? ProjectSettings.MultiFactor().totpAdjacentIntervals
            guard (0...10).contains(intervals) else {
                throw FlintError(.invalidArgument, "totpProviderConfig.adjacentIntervals must be 0…10")
            }
            settings.totpAdjacentIntervals = intervals
        }
    }

    /// `blockingFunctions`: triggers are checked as the official emulator checks them (a known event, an
    /// absolute function URI) and stored for `BlockingFunctions` to call.
    private static func applyBlockingFunctions(_ config: ProjectConfig.BlockingFunctions?, mask: UpdateMask,
                                               to settings: inout ProjectSettings.BlockingFunctions) throws {
        if mask.covers("blockingFunctions.triggers") {
            var triggers: [String: String] = [:]
            for (event, trigger) in config?.triggers ?? [:] {
                guard BlockingFunctions.Event(rawValue: event) != nil else {
                    throw FlintError(.invalidBlockingFunction, "((Event type is invalid.))")
                }
                guard let uri = trigger.functionUri, let url = URLComponents(string: uri),
                      url.scheme?.isEmpty == false, url.host?.isEmpty == false else {
                    throw FlintError(.invalidBlockingFunction, "((Expected an absolute URI with valid scheme and host.))")
                }
                triggers[event] = uri
            }
            settings.triggers = triggers
        }
        let forwarded = config?.forwardInboundCredentials
        let credentials: [(field: String, stored: WritableKeyPath<ProjectSettings.BlockingFunctions, Bool>, value: Bool?)] = [
            ("idToken", \.forwardsIDToken, forwarded?.idToken),
            ("accessToken", \.forwardsAccessToken, forwarded?.accessToken),
            ("refreshToken", \.forwardsRefreshToken, forwarded?.refreshToken),
        ]
        for (field, stored, value) in credentials where mask.covers("blockingFunctions.forwardInboundCredentials.\(field)") {
            settings[keyPath: stored] = value ?? false
        }
    }

    /// The action emails the v2 config names, with the request type each stands for.
    private static func emailTemplates(_ sendEmail: ProjectConfig.Notification.SendEmail?)
        -> [(field: String, type: OobRequestType, template: ProjectConfig.Notification.EmailTemplate?)] {
        [
            ("resetPasswordTemplate", .passwordReset, sendEmail?.resetPasswordTemplate),
            ("verifyEmailTemplate", .verifyEmail, sendEmail?.verifyEmailTemplate),
            ("changeEmailTemplate", .recoverEmail, sendEmail?.changeEmailTemplate),
        ]
    }

    /// A project's own wording, checked; nil (the built-in wording) when it has neither subject nor body.
    static func emailTemplate(_ template: ProjectConfig.Notification.EmailTemplate?) throws -> ProjectSettings.EmailTemplate? {
        let subject = template?.subject?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let body = template?.body ?? ""
        if subject.isEmpty, body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return nil }
        guard !subject.isEmpty, body.contains("%LINK%") else {
            throw FlintError(.invalidArgument, "A custom email needs a subject and a body that contains %LINK%.")
        }
        let format = (template?.bodyFormat ?? "PLAIN_TEXT").uppercased()
        guard format == "PLAIN_TEXT" || format == "HTML" else {
            throw FlintError(.invalidArgument, "bodyFormat must be PLAIN_TEXT or HTML.")
        }
        let sender = template?.senderDisplayName?.trimmingCharacters(in: .whitespacesAndNewlines)
        return .init(subject: subject, body: body, bodyFormat: format, senderDisplayName: sender?.isEmpty == false ? sender : nil)
    }

    private static func apps(_ config: ProjectConfig.Apps?) throws -> ProjectSettings.Apps {
        var apps = ProjectSettings.Apps()
        for app in config?.ios ?? [] {
            guard !app.bundleId.isEmpty, app.teamId.count == 10, app.teamId.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
            else { throw FlintError(.invalidArgument, "An iOS app needs a bundle ID and a 10-character team ID.") }
            let clientID = app.clientId.flatMap { $0.isEmpty ? nil : $0 }
            let appID = app.appId.flatMap { $0.isEmpty ? nil : $0 }
            guard clientID.map({ RegisteredApps.scheme(clientID: $0) != nil }) ?? true else {
                throw FlintError(.invalidArgument, "An iOS app's clientId must be an OAuth client ID (123-abc.apps.googleusercontent.com).")
            }
            guard appID.map({ RegisteredApps.scheme(appID: $0) != nil }) ?? true else {
                throw FlintError(.invalidArgument, "An iOS app's appId must be a Firebase app ID (1:123:ios:abc).")
            }
            apps.iOS.append(.init(bundleID: app.bundleId, teamID: app.teamId, clientID: clientID, appID: appID))
        }
        for app in config?.android ?? [] {
            guard !app.packageName.isEmpty else { throw FlintError(.invalidArgument, "An Android app needs a package name.") }
            apps.android.append(.init(packageName: app.packageName, sha256CertFingerprints: app.sha256CertFingerprints ?? []))
        }
        return apps
    }

    static func regionPolicy(_ config: ProjectConfig.SmsRegionConfig?) throws -> ProjectSettings.Phone.RegionPolicy {
        func checked(_ regions: [String]?) throws -> [String] {
            let codes = (regions ?? []).map { $0.uppercased() }
            if let unknown = codes.first(where: { !PhoneRegions.isRegion($0) }) {
                throw FlintError(.invalidArgument, "Unknown region code \(unknown) in smsRegionConfig.")
            }
            return codes
        }
        switch (config?.allowByDefault, config?.allowlistOnly) {
        case (.some, .some):
            throw FlintError(.invalidArgument, "smsRegionConfig takes allowByDefault or allowlistOnly, not both.")
        case (_, .some(let allowlist)):
            return .allowlistOnly(allowed: try checked(allowlist.allowedRegions))
        case (let allowByDefault, nil):
            return .allowByDefault(disallowed: try checked(allowByDefault?.disallowedRegions))
        }
    }

    /// A region policy as the v2 resources show it (`smsRegionConfig`).
    static func shown(_ policy: ProjectSettings.Phone.RegionPolicy) -> ProjectConfig.SmsRegionConfig {
        switch policy {
        case .allowByDefault(let disallowed): .init(allowByDefault: .init(disallowedRegions: disallowed))
        case .allowlistOnly(let allowed): .init(allowlistOnly: .init(allowedRegions: allowed))
        }
    }

    static func config(of project: Project) -> ProjectConfig {
        let settings = project.settings
        return ProjectConfig(
            name: "projects/\(project.id)/config",
            signIn: .init(
                email: .init(enabled: settings.signIn.emailPasswordEnabled, passwordRequired: !settings.signIn.emailLinkEnabled),
                phoneNumber: .init(enabled: settings.signIn.phoneEnabled, testPhoneNumbers: settings.phone.testNumbers),
                anonymous: .init(enabled: settings.signIn.anonymousEnabled),
                allowDuplicateEmails: settings.signIn.allowDuplicateEmails,
                hashConfig: .init(algorithm: "SCRYPT", signerKey: project.signerKey.base64EncodedString(),
                                  saltSeparator: settings.passwordHash.saltSeparator, rounds: settings.passwordHash.rounds,
                                  memoryCost: settings.passwordHash.memoryCost)),
            authorizedDomains: settings.authorizedDomains,
            emailPrivacyConfig: .init(enableImprovedEmailPrivacy: settings.improvedEmailPrivacy),
            smsRegionConfig: shown(settings.phone.regionPolicy),
            appVerification: .init(
                apnsEnabled: settings.phone.apnsEnabled, captcha: settings.phone.captcha.rawValue,
                proofOfWorkBits: settings.phone.proofOfWorkBits, required: settings.phone.appVerificationRequired),
            apps: .init(
                ios: settings.apps.iOS.map { .init(bundleId: $0.bundleID, teamId: $0.teamID, clientId: $0.clientID, appId: $0.appID) },
                android: settings.apps.android.map { .init(packageName: $0.packageName, sha256CertFingerprints: $0.sha256CertFingerprints) }),
            notification: .init(sendEmail: .init(
                resetPasswordTemplate: shownTemplate(settings.emailTemplates[OobRequestType.passwordReset.rawValue]),
                verifyEmailTemplate: shownTemplate(settings.emailTemplates[OobRequestType.verifyEmail.rawValue]),
                changeEmailTemplate: shownTemplate(settings.emailTemplates[OobRequestType.recoverEmail.rawValue]))),
            mfa: .init(
                state: settings.multiFactor.enabled ? "ENABLED" : "DISABLED",
                enabledProviders: settings.multiFactor.phone ? ["PHONE_SMS"] : [],
                providerConfigs: [.init(state: settings.multiFactor.totp ? "ENABLED" : "DISABLED",
                                        totpProviderConfig: .init(adjacentIntervals: settings.multiFactor.totpAdjacentIntervals))]),
            blockingFunctions: shownBlockingFunctions(settings.blockingFunctions),
            smsDefenseConfig: .init(regionDailyCap: settings.phone.regionDailyCap, deniedPrefixes: settings.phone.deniedPrefixes),
            passwordPolicyConfig: settings.passwordPolicy.map(PasswordPolicy.config),
            oauthServer: settings.oauthServer.map(\.shown), sessionPolicy: settings.sessionPolicy?.shown ?? .init(),
            auditTrail: (settings.auditTrail ?? AuditTrailSettings()).shown)
    }

    /// Blocking functions as the v2 config shows them: like Google's JSON, without empty or false fields
    /// (`{}` when none are configured).
    private static func shownBlockingFunctions(_ settings: ProjectSettings.BlockingFunctions) -> ProjectConfig.BlockingFunctions {
        func shown(_ flag: Bool) -> Bool? { flag ? true : nil }
        let forwarded = ProjectConfig.BlockingFunctions.ForwardInboundCredentials(
            idToken: shown(settings.forwardsIDToken), accessToken: shown(settings.forwardsAccessToken),
            refreshToken: shown(settings.forwardsRefreshToken))
        return .init(triggers: settings.triggers.isEmpty ? nil : settings.triggers.mapValues { .init(functionUri: $0) },
                     forwardInboundCredentials: forwarded == .init() ? nil : forwarded)
    }

    /// A stored wording as the v2 config shows it (`customized: false` for the built-in one).
    private static func shownTemplate(_ template: ProjectSettings.EmailTemplate?) -> ProjectConfig.Notification.EmailTemplate {
        guard let template else { return .init(customized: false) }
        return .init(senderDisplayName: template.senderDisplayName, subject: template.subject, body: template.body,
                     bodyFormat: template.bodyFormat, customized: true)
    }
}

/// The field paths a PATCH changes.
struct UpdateMask: Sendable {
    let paths: [String]

    init(_ raw: String) {
        paths = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    init(paths: [String]) { self.paths = paths }

    /// Every leaf field present in `config`.
    init(present config: ProjectConfig) { paths = config.presentFieldPaths }

    /// True if `field` or one of its parents is in the mask.
    func covers(_ field: String) -> Bool {
        paths.contains { field == $0 || field.hasPrefix($0 + ".") }
    }
}

extension Optional where Wrapped == UpdateMask {
    /// Whether a change writes `field`: the mask names it (or a parent), or, without a mask, the body has it.
    func covers(_ field: String, present: Bool) -> Bool {
        self?.covers(field) ?? present
    }
}
