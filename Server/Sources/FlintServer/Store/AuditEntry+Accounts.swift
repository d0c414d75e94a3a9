import FlintWire

/// The events of account writes, made from what the write changes, so that every change `AccountStore` makes is
/// recorded in its own transaction whichever feature asked for it.
extension AuditEntry {
    /// A new account, and the session it signs in with if any.
    static func signUp(_ user: UserAccount, session: NewSession?) -> AuditEntry {
        AuditEntry(.signUp, realm: user.projectID, localID: user.localID, sessionID: session.map(SessionStore.sessionID),
                   detail: ["method": session?.record.signInProvider ?? firstMethod(of: user)])
    }

    /// A sign-in's new session.
    static func signIn(_ session: NewSession) -> AuditEntry {
        var detail = ["method": session.record.signInProvider]
        detail["secondFactor"] = session.record.secondFactor?.kind
        return AuditEntry(.signIn, realm: session.record.projectID, localID: session.record.localID,
                          sessionID: SessionStore.sessionID(of: session), detail: detail)
    }

    static func deleted(_ user: UserAccount) -> AuditEntry {
        AuditEntry(.userDeleted, realm: user.projectID, localID: user.localID)
    }

    /// The events of a change to an existing account: one for each kind of thing it changed. Sign-ins' own edits (the
    /// sign-in time, a provider's fresh profile) record nothing here: the session they begin does.
    static func changes(_ modification: AccountStore.Modification, _ change: AccountChange) -> [AuditEntry] {
        let (before, after) = (modification.before, modification.after)
        func entry(_ type: AuditEventType, fields: [String]? = nil, detail: [String: String]? = nil) -> AuditEntry {
            AuditEntry(type, realm: after.projectID, localID: after.localID, fields: fields, detail: detail)
        }
        var entries: [AuditEntry] = []
        if before.password != after.password { entries.append(entry(.passwordChanged)) }
        if before.email != after.email { entries.append(entry(.emailChanged)) }
        if !before.emailVerified, after.emailVerified { entries.append(entry(.emailVerified)) }
        if before.phoneNumber != after.phoneNumber { entries.append(entry(.phoneChanged)) }
        let profile = [("displayName", before.displayName != after.displayName), ("photoUrl", before.photoURL != after.photoURL),
                       ("emailVerified", before.emailVerified && !after.emailVerified)].filter(\.1).map(\.0)
        if !profile.isEmpty { entries.append(entry(.profileChanged, fields: profile)) }
        if before.mfaFactors != after.mfaFactors {
            let (old, new) = (Set(before.mfaFactors.map(\.enrollmentID)), Set(after.mfaFactors.map(\.enrollmentID)))
            entries.append(entry(.secondFactorsChanged, detail: listed(["enrolled": new.subtracting(old), "removed": old.subtracting(new)])))
        }
        if before.passkeys != after.passkeys {
            let (old, new) = (Set(before.passkeys.map(\.credentialID)), Set(after.passkeys.map(\.credentialID)))
            entries.append(entry(.passkeysChanged, detail: listed(["added": new.subtracting(old), "removed": old.subtracting(new)])))
        }
        if before.disabled != after.disabled { entries.append(entry(after.disabled ? .userDisabled : .userEnabled)) }
        if before.customAttributes != after.customAttributes { entries.append(entry(.claimsChanged)) }
        for edit in change.edits {
            switch edit {
            case .link(let identity): entries.append(entry(.providerLinked, detail: ["provider": identity.providerID]))
            case .unlink(let providerID): entries.append(entry(.providerUnlinked, detail: ["provider": providerID]))
            default: break
            }
        }
        if change.revokesSessions { entries.append(entry(.sessionsRevoked)) }
        return entries
    }

    /// The sign-in method of an account made without a session (by an admin, an import of one).
    private static func firstMethod(of user: UserAccount) -> String {
        if user.password != nil { return "password" }
        if let identity = user.identities.first { return identity.providerID }
        if user.phoneNumber != nil { return "phone" }
        return "anonymous"
    }

    /// Sets of IDs as comma-separated lists, the empty ones left out.
    private static func listed(_ sets: [String: Set<String>]) -> [String: String] {
        sets.filter { !$0.value.isEmpty }.mapValues { $0.sorted().joined(separator: ",") }
    }
}
