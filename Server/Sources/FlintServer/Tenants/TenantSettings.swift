import FlintWire

/// What a tenant has that a project has not: its name, its switch, its MFA config as the v2 API shows it, and whether
/// its session policy is its own.
public struct TenantProfile: Codable, Sendable, Equatable {
    public var displayName: String?
    /// `disableAuth`: every call in the tenant is refused with `PROJECT_DISABLED`.
    public var disableAuth = false
    /// `mfaConfig` as last set (`enabledProviders` may hold `PROVIDER_UNSPECIFIED`, which Firebase keeps and shows);
    /// what it means is applied to `ProjectSettings.multiFactor`.
    public var mfaConfig = ProjectConfig.MultiFactorConfig(state: "DISABLED", enabledProviders: [])
    /// The tenant's own session policy (nil: its project's applies). Kept here, not in its `sessionPolicy`, so that the
    /// tenant API shows the tenant's own while `tenantView` puts the one in force in `ProjectSettings.sessionPolicy`.
    public var sessionPolicy: SessionPolicy?

    public init() {}
}

extension ProjectSettings {
    /// Email-link sign-in is on: for a project, the email provider on without a required password (the v2 config's
    /// `signIn.email`); for a tenant, its `enableEmailLinkSignin` alone (password sign-up is its own switch there).
    var allowsEmailLinkSignIn: Bool { signIn.emailLinkEnabled && (tenant != nil || signIn.emailPasswordEnabled) }

    /// A tenant's settings as sign-ins in it see them: its own password, email-link and anonymous switches, second
    /// factors, test numbers, SMS regions, password policy, identity providers and passkey relying party (else its
    /// project's), its session policy if it has one, and its project's everything else
    /// (phone sign-in, which the v2 tenant has no switch for, authorized domains, apps, email wordings, email privacy,
    /// blocking functions, SMS defences, app verification), as Identity Platform's tenants inherit them. Tenants hash
    /// passwords with their project's key too (`ProjectDirectory.create`), so one set of hash parameters imports an
    /// export of the project or of any of its tenants.
    func tenantView(inheriting project: ProjectSettings) -> ProjectSettings {
        var view = project
        view.signIn.anonymousEnabled = signIn.anonymousEnabled
        view.signIn.emailPasswordEnabled = signIn.emailPasswordEnabled
        view.signIn.emailLinkEnabled = signIn.emailLinkEnabled
        view.multiFactor = multiFactor
        view.phone.testNumbers = phone.testNumbers
        view.phone.regionPolicy = phone.regionPolicy
        view.passwordPolicy = passwordPolicy
        view.identityProviders = identityProviders
        view.passkeys = passkeys ?? project.passkeys
        view.tenant = tenant ?? TenantProfile()
        view.sessionPolicy = tenant?.sessionPolicy ?? project.sessionPolicy
        return view
    }
}
