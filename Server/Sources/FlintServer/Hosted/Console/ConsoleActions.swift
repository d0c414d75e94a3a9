import FlintWire
import Foundation

/// The console's form actions, one function each: read the form, call the service the Admin API uses,
/// say where the browser goes next. A `FlintError` they throw is shown on the form's page.
extension ConsoleRoutes {
    func switchProject(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        guard context.session.isOwner, let project = form["project"], context.projectIDs.contains(project) else {
            throw FlintError(.invalidArgument, "Choose one of the listed projects.")
        }
        return entering(project, context, notice: .projectSwitched, location: "/console/users")
    }

    func changeUser(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let uid = form["uid"] ?? ""
        let location = "/console/users/" + FormURLEncoding.escape(uid)
        var change = UpdateAccountRequest(returnSecureToken: false)
        change.localId = uid
        let notice: Notice
        switch form["operation"] {
        case "disable":
            change.disableUser = true
            notice = .userDisabled
        case "enable":
            change.disableUser = false
            notice = .userEnabled
        case "remove-passkey":
            guard let credential = form["credential"], !credential.isEmpty else { throw FlintError(.invalidCredentialID) }
            change.deletePasskey = [credential]
            notice = .passkeyRemoved
        case "revoke-app":
            guard let clientID = form["client-id"], !clientID.isEmpty,
                  try await oauthConsents.revoke(realm: context.project.id, localID: uid, clientID: clientID)
            else { throw FlintError(.invalidArgument, "Choose one of the listed applications.") }
            return Outcome(notice: .appRevoked, location: location)
        case "end-session":
            // As the admin API's `DELETE …/accounts/{uid}/sessions/{sessionId}` ends it.
            guard let sessionID = form["session-id"], !sessionID.isEmpty else { throw FlintError(.sessionNotFound) }
            _ = try await userSessions.end(realm: context.project.id, localID: uid, .only(sessionID))
            return Outcome(notice: .sessionEnded, location: location)
        case "revoke":
            change.validSince = LenientString(String(clock.seconds))
            notice = .sessionsRevoked
        case "delete":
            guard form["confirm-delete"] == "on" else {
                throw FlintError(.invalidArgument, "Tick the box to confirm that the user should be deleted.")
            }
            _ = try await accounts.delete(DeleteAccountRequest(localId: uid), caller: context.adminCaller)
            return Outcome(notice: .userDeleted, location: "/console/users")
        default:
            throw FlintError.notFound
        }
        _ = try await accounts.update(change, caller: context.adminCaller)
        return Outcome(notice: notice, location: location)
    }

    func saveMethods(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let change = ProjectConfig(signIn: .init(
            email: .init(enabled: form["email-password"] == "on", passwordRequired: form["email-link"] != "on"),
            phoneNumber: .init(enabled: form["phone"] == "on"), anonymous: .init(enabled: form["anonymous"] == "on")))
        try await updateConfig(context, change, mask: "signIn.email.enabled,signIn.email.passwordRequired,"
                               + "signIn.phoneNumber.enabled,signIn.anonymous.enabled")
        return Outcome(notice: .saved, location: "/console/sign-in")
    }

    func saveApple(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let privateKey = form["apple-private-key"].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        let config = DefaultSupportedIdpConfig(
            enabled: form["apple-enabled"] == "on", clientId: Self.nonEmpty(form["apple-services-id"]),
            appleSignInConfig: .init(
                bundleIds: Self.list(form["apple-bundle-ids"]),
                codeFlowConfig: .init(teamId: Self.nonEmpty(form["apple-team-id"]), keyId: Self.nonEmpty(form["apple-key-id"]),
                                      privateKey: privateKey)))
        // An empty key field keeps the stored key.
        var mask = "enabled,clientId,appleSignInConfig.bundleIds,appleSignInConfig.codeFlowConfig.teamId,"
            + "appleSignInConfig.codeFlowConfig.keyId"
        if privateKey != nil { mask += ",appleSignInConfig.codeFlowConfig.privateKey" }
        _ = try await identityProviders.save(ProviderID.apple, config, mask: UpdateMask(mask), caller: context.adminCaller)
        return Outcome(notice: .saved, location: "/console/sign-in")
    }

    /// Saves a provider configured by a client ID and secret (`ClientProvider`).
    func saveClientProvider(_ provider: ClientProvider, _ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let secret = Self.nonEmpty(form["\(provider.slug)-client-secret"])
        let config = DefaultSupportedIdpConfig(
            enabled: form["\(provider.slug)-enabled"] == "on", clientId: Self.nonEmpty(form["\(provider.slug)-client-id"]),
            clientSecret: secret)
        // An empty secret field keeps the stored secret.
        _ = try await identityProviders.save(provider.id, config,
                                             mask: UpdateMask(secret == nil ? "enabled,clientId" : "enabled,clientId,clientSecret"),
                                             caller: context.adminCaller)
        return Outcome(notice: .saved, location: "/console/sign-in")
    }

    func addNumber(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let number = try Validation.dialledPhoneNumber(form["number"])
        var numbers = context.project.settings.phone.testNumbers
        guard numbers[number] == nil else { throw FlintError(.invalidArgument, "\(number) is already a test number.") }
        numbers[number] = form["code"]?.trimmingCharacters(in: .whitespaces) ?? ""
        try await updateConfig(context, ProjectConfig(signIn: .init(phoneNumber: .init(testPhoneNumbers: numbers))),
                               mask: "signIn.phoneNumber.testPhoneNumbers")
        return Outcome(notice: .numberAdded, location: "/console/test-numbers")
    }

    func removeNumber(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        var numbers = context.project.settings.phone.testNumbers
        guard let number = form["number"], numbers.removeValue(forKey: number) != nil else {
            throw FlintError(.invalidArgument, "That number is not a test number.")
        }
        try await updateConfig(context, ProjectConfig(signIn: .init(phoneNumber: .init(testPhoneNumbers: numbers))),
                               mask: "signIn.phoneNumber.testPhoneNumbers")
        return Outcome(notice: .numberRemoved, location: "/console/test-numbers")
    }

    func saveDomains(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let domains = (form["domains"] ?? "").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        try await updateConfig(context, ProjectConfig(authorizedDomains: domains), mask: "authorizedDomains")
        return Outcome(notice: .saved, location: "/console/settings")
    }

    func savePrivacy(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        var change = ProjectConfig()
        change.emailPrivacyConfig = .init(enableImprovedEmailPrivacy: form["enumeration-protection"] == "on")
        try await updateConfig(context, change, mask: "emailPrivacyConfig.enableImprovedEmailPrivacy")
        return Outcome(notice: .saved, location: "/console/settings")
    }

    func saveRegions(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let regions = Self.list(form["regions"])
        var change = ProjectConfig()
        switch form["mode"] {
        case "allowlist-only": change.smsRegionConfig = .init(allowlistOnly: .init(allowedRegions: regions))
        case "allow-by-default": change.smsRegionConfig = .init(allowByDefault: .init(disallowedRegions: regions))
        default: throw FlintError(.invalidArgument, "Choose how regions are allowed.")
        }
        let cap = form["daily-cap"].flatMap { $0.isEmpty ? nil : $0 }
        guard cap == nil || Int64(cap ?? "") != nil else { throw FlintError(.invalidArgument, "The daily cap must be a whole number.") }
        change.smsDefenseConfig = .init(regionDailyCap: cap.flatMap { Int64($0) }, deniedPrefixes: Self.list(form["denied-prefixes"]))
        try await updateConfig(context, change, mask: "smsRegionConfig,smsDefenseConfig")
        return Outcome(notice: .saved, location: "/console/settings")
    }

    /// The settings page's apps: one per line, fields separated by commas (`line(of:)` writes them so).
    func saveApps(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        func lines(_ name: String) -> [[String]] {
            (form[name] ?? "").split(whereSeparator: \.isNewline).map { line in
                line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            }.filter { !$0.allSatisfy(\.isEmpty) }
        }
        let iOS = try lines("ios-apps").map { fields in
            guard (2...4).contains(fields.count) else {
                throw FlintError(.invalidArgument, "An iOS app is its bundle ID, team ID, and optionally its OAuth client ID and app ID.")
            }
            func field(_ index: Int) -> String? { index < fields.count ? Self.nonEmpty(fields[index]) : nil }
            return ProjectConfig.Apps.IOS(bundleId: fields[0], teamId: fields[1], clientId: field(2), appId: field(3))
        }
        let android = lines("android-apps").map { fields in
            ProjectConfig.Apps.Android(packageName: fields[0], sha256CertFingerprints: fields.dropFirst().filter { !$0.isEmpty })
        }
        try await updateConfig(context, ProjectConfig(apps: .init(ios: iOS, android: android)), mask: "apps")
        return Outcome(notice: .saved, location: "/console/settings")
    }

    /// An app as a line of the settings page's apps fields.
    static func line(of app: ProjectSettings.Apps.IOS) -> String {
        var fields = [app.bundleID, app.teamID, app.clientID ?? "", app.appID ?? ""]
        while fields.last?.isEmpty == true { fields.removeLast() }
        return fields.joined(separator: ", ")
    }

    static func line(of app: ProjectSettings.Apps.Android) -> String {
        ([app.packageName] + app.sha256CertFingerprints).joined(separator: ", ")
    }

    func savePasskeys(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let origins = (form["origins"] ?? "").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        _ = try await PasskeyConfigRoutes(projects: projects).save(
            PasskeyConfig(rpId: form["rp-id"]?.trimmingCharacters(in: .whitespaces), expectedOrigins: origins), in: context.project)
        return Outcome(notice: .saved, location: "/console/settings")
    }

    func saveMultiFactor(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        guard let intervals = Int(form["totp-intervals"] ?? "") else {
            throw FlintError(.invalidArgument, "The TOTP window must be a whole number from 0 to 10.")
        }
        var change = ProjectConfig()
        change.mfa = .init(
            state: form["mfa-enabled"] == "on" ? "ENABLED" : "DISABLED",
            enabledProviders: form["mfa-phone"] == "on" ? ["PHONE_SMS"] : [],
            providerConfigs: [.init(state: form["mfa-totp"] == "on" ? "ENABLED" : "DISABLED",
                                    totpProviderConfig: .init(adjacentIntervals: intervals))])
        try await updateConfig(context, change, mask: "mfa")
        return Outcome(notice: .saved, location: "/console/settings")
    }

    func saveTemplate(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        guard let type = form["type"].flatMap(OobRequestType.init(rawValue:)) else {
            throw FlintError(.invalidArgument, "Unknown email template.")
        }
        // The v2 config's rules (a subject, %LINK% in the body); the console also reaches the sign-in and
        // change-verification emails, which the v2 config does not name.
        let template = try ProjectConfigService.emailTemplate(.init(
            senderDisplayName: form["sender"], subject: form["subject"], body: form["body"],
            bodyFormat: form["html"] == "on" ? "HTML" : "PLAIN_TEXT"))
        _ = try await projects.updateSettings(context.project.id) { $0.emailTemplates[type.rawValue] = template }
        return Outcome(notice: .saved, location: "/console/templates")
    }

    /// A tenant of the project made as the v2 API makes one (`TenantService.create`: its ID from the display name).
    func createTenant(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        guard let name = Self.nonEmpty(form["display-name"]) else {
            throw FlintError(.invalidArgument, "Give the tenant a display name.")
        }
        let tenants = TenantService(core: core, projectConfig: projectConfig)
        _ = try await tenants.create(TenantConfig(
            displayName: name, allowPasswordSignup: form["email-password"] == "on", enableEmailLinkSignin: form["email-link"] == "on",
            enableAnonymousUser: form["anonymous"] == "on"), in: context.projectID)
        return Outcome(notice: .tenantCreated, location: "/console/tenants")
    }

    func openTenant(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        entering(try await namedTenant(form, context).key, context, notice: .tenantOpened, location: "/console/users")
    }

    func closeTenant(_ context: ConsoleContext) -> Outcome {
        entering(context.projectID, context, notice: .tenantClosed, location: "/console/users")
    }

    func deleteTenant(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        guard form["confirm-delete"] == "on" else {
            throw FlintError(.invalidArgument, "Tick the box to confirm that the tenant and its users should be deleted.")
        }
        let realm = try await namedTenant(form, context)
        guard try await projects.deleteTenant(realm) else { throw Self.noSuchTenant }
        // A session whose open tenant is gone goes back to the project.
        return realm.key == context.tenant?.id
            ? entering(context.projectID, context, notice: .tenantDeleted, location: "/console/tenants")
            : Outcome(notice: .tenantDeleted, location: "/console/tenants")
    }

    /// The existing tenant the form names (`tenant`, its ID) in the session's project: the only tenants a session
    /// may open, which `ConsoleSessions.session(cookie:)` relies on for a service account's.
    private func namedTenant(_ form: Form, _ context: ConsoleContext) async throws -> Realm {
        guard let id = form["tenant"], Realm.isValidTenantID(id) else { throw Self.noSuchTenant }
        let realm = Realm(projectID: context.projectID, tenantID: id)
        guard try await projects.project(realm.key) != nil else { throw Self.noSuchTenant }
        return realm
    }

    private static let noSuchTenant = FlintError(.invalidArgument, "Choose one of the listed tenants.")

    /// The outcome of an action that moves the session to another project or tenant (`key`, see `Realm.key`).
    private func entering(_ key: String, _ context: ConsoleContext, notice: Notice, location: String) -> Outcome {
        var session = context.session
        session.projectID = key
        return Outcome(notice: notice, location: location, session: session)
    }

    func updateConfig(_ context: ConsoleContext, _ change: ProjectConfig, mask: String) async throws {
        _ = try await projectConfig.update(context.project, with: change, mask: UpdateMask(mask))
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// A comma- or whitespace-separated list.
    static func list(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
    }
}
