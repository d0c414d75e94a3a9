import Foundation

/// The schema, as numbered steps applied once each, in order, by whichever node starts first.
/// Written in the SQL both SQLite and PostgreSQL accept: TEXT and BIGINT columns only.
/// Never edit a released step; add a new one.
enum Migrations {
    static let steps: [(version: Int64, statements: [String])] = [
        (1, [
            """
            CREATE TABLE projects (
                project_id TEXT PRIMARY KEY,
                settings TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE api_keys (
                api_key TEXT PRIMARY KEY,
                project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX api_keys_project ON api_keys(project_id)",
            """
            CREATE TABLE users (
                project_id TEXT NOT NULL,
                local_id TEXT NOT NULL,
                email TEXT,
                email_verified BIGINT NOT NULL DEFAULT 0,
                display_name TEXT,
                photo_url TEXT,
                phone_number TEXT,
                password_hash TEXT,
                password_salt TEXT,
                password_updated_at BIGINT,
                disabled BIGINT NOT NULL DEFAULT 0,
                custom_attributes TEXT,
                valid_since BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                last_login_at BIGINT,
                last_refresh_at BIGINT,
                email_link_signin BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (project_id, local_id)
            )
            """,
            // One account per email and per phone number within a project (NULLs never collide).
            "CREATE UNIQUE INDEX users_email_unique ON users(project_id, email)",
            "CREATE UNIQUE INDEX users_phone_unique ON users(project_id, phone_number)",
            """
            CREATE TABLE user_identities (
                project_id TEXT NOT NULL,
                provider_id TEXT NOT NULL,
                raw_id TEXT NOT NULL,
                local_id TEXT NOT NULL,
                email TEXT,
                display_name TEXT,
                photo_url TEXT,
                screen_name TEXT,
                PRIMARY KEY (project_id, provider_id, raw_id),
                FOREIGN KEY (project_id, local_id) REFERENCES users(project_id, local_id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX user_identities_user ON user_identities(project_id, local_id)",
            """
            CREATE TABLE refresh_tokens (
                token_hash TEXT PRIMARY KEY,
                project_id TEXT NOT NULL,
                local_id TEXT NOT NULL,
                sign_in_provider TEXT NOT NULL,
                auth_time BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                FOREIGN KEY (project_id, local_id) REFERENCES users(project_id, local_id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX refresh_tokens_user ON refresh_tokens(project_id, local_id)",
            """
            CREATE TABLE signing_keys (
                kid TEXT PRIMARY KEY,
                public_key_pem TEXT NOT NULL,
                certificate_pem TEXT NOT NULL,
                sealed_private_key TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
        ]),
        (2, [
            // Fixed-window counters shared by every node (failed sign-ins now; sends later).
            """
            CREATE TABLE rate_limits (
                bucket TEXT PRIMARY KEY,
                window_start BIGINT NOT NULL,
                count BIGINT NOT NULL
            )
            """,
        ]),
        (3, [
            // Phone verification codes. `id` is the SHA-256 of the sessionInfo handed to the client and
            // `code_hash` an HMAC of the code keyed with that sessionInfo, so the table alone reveals
            // neither. The clear columns are filled in emulator mode only (its code listing needs them).
            """
            CREATE TABLE verification_codes (
                id TEXT PRIMARY KEY,
                project_id TEXT NOT NULL,
                phone_number TEXT NOT NULL,
                purpose TEXT NOT NULL,
                code_hash TEXT NOT NULL,
                attempts BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                emulator_session_info TEXT,
                emulator_code TEXT
            )
            """,
            "CREATE INDEX verification_codes_phone ON verification_codes(project_id, phone_number, created_at)",
            "CREATE INDEX verification_codes_expiry ON verification_codes(expires_at)",
            // APNs app-verification receipts (`verifyClient`): hashes of the receipt and its secret.
            """
            CREATE TABLE app_credentials (
                receipt_hash TEXT PRIMARY KEY,
                project_id TEXT NOT NULL,
                secret_hash TEXT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
        ]),
        (4, [
            // Email action codes. `id` is the SHA-256 of the code; the clear columns are filled in emulator
            // mode only (its oob-code listing needs them).
            """
            CREATE TABLE oob_codes (
                id TEXT PRIMARY KEY,
                project_id TEXT NOT NULL,
                request_type TEXT NOT NULL,
                email TEXT NOT NULL,
                new_email TEXT,
                local_id TEXT,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                emulator_code TEXT,
                emulator_link TEXT
            )
            """,
            "CREATE INDEX oob_codes_project ON oob_codes(project_id, created_at)",
            "CREATE INDEX oob_codes_expiry ON oob_codes(expires_at)",
        ]),
        (5, [
            // Second factors, as JSON on the user row (they live and die with it; TOTP secrets are sealed).
            "ALTER TABLE users ADD COLUMN mfa_factors TEXT",
            // The second factor a session passed, so refreshed ID tokens keep its claims.
            "ALTER TABLE refresh_tokens ADD COLUMN second_factor TEXT",
            "ALTER TABLE refresh_tokens ADD COLUMN second_factor_id TEXT",
            "CREATE INDEX oob_codes_user ON oob_codes(project_id, local_id)",
        ]),
        (6, [
            // Admin credentials: the public halves of service-account keys (the private key is handed to
            // the operator once, in the key file, and never stored).
            """
            CREATE TABLE service_accounts (
                key_id TEXT PRIMARY KEY,
                project_id TEXT NOT NULL,
                client_email TEXT NOT NULL,
                public_key_pem TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
            "CREATE INDEX service_accounts_project ON service_accounts(project_id, client_email)",
            // Developer claims of a custom-token sign-in, kept by its refresh token so refreshed ID tokens carry them.
            "ALTER TABLE refresh_tokens ADD COLUMN session_claims TEXT",
            // How an imported password hash was made, until the user's first sign-in re-hashes it.
            "ALTER TABLE users ADD COLUMN password_hash_params TEXT",
        ]),
        (7, [
            // Per-day usage for the console: sign-ins, SMS and emails sent, per project. Days are UTC epoch days.
            """
            CREATE TABLE usage_daily (
                project_id TEXT NOT NULL,
                day BIGINT NOT NULL,
                metric TEXT NOT NULL,
                count BIGINT NOT NULL,
                PRIMARY KEY (project_id, day, metric)
            )
            """,
        ]),
        (8, [
            // Revocation by epoch: each revocation of a user's sessions adds one; a session (refresh token)
            // keeps the epoch it began in, so revocation is exact and ordered by the row lock, not by clocks.
            "ALTER TABLE users ADD COLUMN session_epoch BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE refresh_tokens ADD COLUMN session_epoch BIGINT NOT NULL DEFAULT 0",
            // Project settings are written compare-and-swap on this version, and nodes check it to see a change at once.
            "ALTER TABLE projects ADD COLUMN version BIGINT NOT NULL DEFAULT 0",
        ]),
        (9, [
            // Sign-in methods for an address also find accounts linked to a provider account of that address.
            "CREATE INDEX user_identities_email ON user_identities(project_id, email)",
        ]),
        (10, [
            // When a refresh token was last used (epoch seconds, kept to the hour), for idle expiry and pruning.
            "ALTER TABLE refresh_tokens ADD COLUMN last_used_at BIGINT NOT NULL DEFAULT 0",
            "UPDATE refresh_tokens SET last_used_at = created_at",
            "CREATE INDEX refresh_tokens_last_used ON refresh_tokens(last_used_at)",
        ]),
        (11, [
            // Emails a node could not send before it stopped, sealed with the master key; the next node sends them.
            "CREATE TABLE pending_emails (sealed TEXT PRIMARY KEY)",
        ]),
        (12, [
            // Moved by every write of project settings and signing keys (see `CacheGeneration`).
            "CREATE TABLE cache_generation (id BIGINT PRIMARY KEY, value BIGINT NOT NULL)",
            "INSERT INTO cache_generation (id, value) VALUES (1, 0)",
        ]),
        (13, [
            // Passkeys: the list on the user's row, and each credential ID once per realm (the lookup of a sign-in).
            "ALTER TABLE users ADD COLUMN passkeys TEXT",
            """
            CREATE TABLE user_passkeys (
                project_id TEXT NOT NULL,
                credential_id TEXT NOT NULL,
                local_id TEXT NOT NULL,
                PRIMARY KEY (project_id, credential_id),
                FOREIGN KEY (project_id, local_id) REFERENCES users(project_id, local_id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX user_passkeys_user ON user_passkeys(project_id, local_id)",
        ]),
        (14, [
            // WebAuthn challenges of production mode's passkey ceremonies: the SHA-256 of each, single use.
            """
            CREATE TABLE passkey_challenges (
                challenge_hash TEXT PRIMARY KEY,
                project_id TEXT NOT NULL,
                ceremony TEXT NOT NULL,
                local_id TEXT,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX passkey_challenges_expiry ON passkey_challenges(expires_at)",
        ]),
        (15, [
            // A SAML sign-in's attributes, carried by its session's ID tokens (`firebase.sign_in_attributes`).
            "ALTER TABLE refresh_tokens ADD COLUMN sign_in_attributes TEXT",
        ]),
        (16, [
            // The console's users list, newest first, a page at a time from a key (`AccountStore.users(newestFirst:)`).
            "CREATE INDEX users_created ON users(project_id, created_at, local_id)",
        ]),
        (17, [
            // Values kept under a short handle (`StoredHandles`): a SAML sign-in's RelayState and the IdP's response.
            """
            CREATE TABLE stored_handles (
                handle_hash TEXT PRIMARY KEY,
                purpose TEXT NOT NULL,
                sealed_value TEXT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX stored_handles_expiry ON stored_handles(expires_at)",
        ]),
        (18, [
            // The OpenID provider (`OAuthStore`): its clients, users' remembered consents, authorization codes,
            // token families (what one code began, revoked together) with their refresh tokens, and the browser
            // sessions of its sign-in page. A realm column holds the realm's key (see `Realm`).
            """
            CREATE TABLE oauth_clients (
                client_id TEXT PRIMARY KEY,
                realm TEXT NOT NULL,
                settings TEXT NOT NULL,
                secret_hash TEXT,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX oauth_clients_realm ON oauth_clients(realm, client_id)",
            """
            CREATE TABLE oauth_grants (
                realm TEXT NOT NULL,
                local_id TEXT NOT NULL,
                client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
                scopes TEXT NOT NULL,
                granted_at BIGINT NOT NULL,
                PRIMARY KEY (realm, local_id, client_id),
                FOREIGN KEY (realm, local_id) REFERENCES users(project_id, local_id) ON DELETE CASCADE
            )
            """,
            """
            CREATE TABLE oauth_codes (
                code_hash TEXT PRIMARY KEY,
                client_id TEXT NOT NULL,
                payload TEXT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT,
                family_id TEXT
            )
            """,
            "CREATE INDEX oauth_codes_expiry ON oauth_codes(expires_at)",
            """
            CREATE TABLE oauth_token_families (
                family_id TEXT PRIMARY KEY,
                realm TEXT NOT NULL,
                local_id TEXT NOT NULL,
                client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
                grant_payload TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT,
                FOREIGN KEY (realm, local_id) REFERENCES users(project_id, local_id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX oauth_token_families_user ON oauth_token_families(realm, local_id)",
            """
            CREATE TABLE oauth_refresh_tokens (
                token_hash TEXT PRIMARY KEY,
                family_id TEXT NOT NULL REFERENCES oauth_token_families(family_id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                rotated_at BIGINT
            )
            """,
            "CREATE INDEX oauth_refresh_tokens_family ON oauth_refresh_tokens(family_id)",
            """
            CREATE TABLE provider_sessions (
                cookie_hash TEXT PRIMARY KEY,
                sid TEXT NOT NULL UNIQUE,
                realm TEXT NOT NULL,
                local_id TEXT NOT NULL,
                sign_in TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                FOREIGN KEY (realm, local_id) REFERENCES users(project_id, local_id) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX provider_sessions_expiry ON provider_sessions(expires_at)",
        ]),
        // The OpenID provider's device authorizations (RFC 8628): a device code polled by the device, a user code the
        // user types on the verification page; both stored hashed. And the expiry of self-registered clients.
        (19, [
            """
            CREATE TABLE oauth_device_codes (
                device_code_hash TEXT PRIMARY KEY,
                user_code_hash TEXT NOT NULL UNIQUE,
                realm TEXT NOT NULL,
                client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
                request TEXT NOT NULL,
                status TEXT NOT NULL,
                grant_payload TEXT,
                polled_at BIGINT,
                poll_interval BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX oauth_device_codes_expiry ON oauth_device_codes(expires_at)",
            // A client that registered itself (RFC 7591) and never got a token is deleted after this time.
            "ALTER TABLE oauth_clients ADD COLUMN unused_expiry BIGINT",
        ]),
        // Sessions a user sees and ends one by one: each refresh token's public ID (its ID tokens' `sid`), and where the
        // sign-in and the last refresh came from. Sessions begun before have an ID made from their row.
        (20, [
            "ALTER TABLE refresh_tokens ADD COLUMN session_id TEXT",
            "UPDATE refresh_tokens SET session_id = 's' || substr(token_hash, 1, 24)",
            "CREATE UNIQUE INDEX refresh_tokens_session ON refresh_tokens(session_id)",
            "ALTER TABLE refresh_tokens ADD COLUMN created_ip TEXT",
            "ALTER TABLE refresh_tokens ADD COLUMN created_user_agent TEXT",
            "ALTER TABLE refresh_tokens ADD COLUMN last_used_ip TEXT",
            "ALTER TABLE refresh_tokens ADD COLUMN last_used_user_agent TEXT",
            // When the user or an admin ended the session: its refresh token is then TOKEN_EXPIRED, not unknown.
            "ALTER TABLE refresh_tokens ADD COLUMN ended_at BIGINT",
        ]),
        // The audit trail: security events, appended in the transaction of the change each records, never updated.
        // Read newest first by realm, by user, by type or by address (keyset pages on `id`); swept by `time`. A
        // project's webhook stream keeps how far it got.
        (21, [
            """
            CREATE TABLE audit_events (
                id {identity},
                realm TEXT NOT NULL,
                time BIGINT NOT NULL,
                type TEXT NOT NULL,
                local_id TEXT,
                session_id TEXT,
                ip_address TEXT,
                user_agent TEXT,
                principal TEXT NOT NULL,
                operation TEXT,
                fields TEXT,
                detail TEXT
            )
            """,
            // Pages run in (time, id) order: every filter, with a time range or not, is a range of one of these.
            "CREATE INDEX audit_events_realm ON audit_events(realm, time, id)",
            "CREATE INDEX audit_events_user ON audit_events(realm, local_id, time, id)",
            "CREATE INDEX audit_events_type ON audit_events(realm, type, time, id)",
            "CREATE INDEX audit_events_address ON audit_events(realm, ip_address, time, id)",
            "CREATE INDEX audit_events_time ON audit_events(time)",
            "CREATE TABLE audit_streams (project_id TEXT PRIMARY KEY, delivered_through BIGINT NOT NULL)",
        ]),
        // When each of the OpenID provider's token families last got tokens: the family is a session of the user's,
        // listed with their sign-ins.
        (22, [
            "ALTER TABLE oauth_token_families ADD COLUMN last_used_at BIGINT NOT NULL DEFAULT 0",
            "UPDATE oauth_token_families SET last_used_at = created_at",
        ]),
        // The email and phone indexes hold only the accounts that have one: an anonymous, phone or federated account
        // no longer writes an entry (and a B-tree page) for its NULL. Lookups and prefix ranges name the column with
        // `=` or `>=`, which both databases take to imply `IS NOT NULL`, so they still use the index.
        (23, [
            "DROP INDEX users_email_unique",
            "CREATE UNIQUE INDEX users_email_unique ON users(project_id, email) WHERE email IS NOT NULL",
            "DROP INDEX users_phone_unique",
            "CREATE UNIQUE INDEX users_phone_unique ON users(project_id, phone_number) WHERE phone_number IS NOT NULL",
            // The retention sweep goes realm by realm through `audit_events_realm` (AuditStore.realmsWithEvents), so
            // an event's insert no longer writes an index on time alone.
            "DROP INDEX audit_events_time",
        ]),
    ]

    /// Applies every step not yet recorded in `schema_migrations`.
    static func migrate(_ database: any SQLDatabase) async throws {
        try await database.transaction { tx in
            if let lock = database.migrationLockStatement { try await tx.query(lock, []) }
            try await tx.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)", [])
            let applied = Set(try await tx.query("SELECT version FROM schema_migrations", []).compactMap { $0.int("version") })
            for step in steps where !applied.contains(step.version) {
                for statement in step.statements {
                    try await tx.query(statement.replacingOccurrences(of: "{identity}", with: database.identityPrimaryKey), [])
                }
                try await tx.query(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    [.int(step.version), .int(Int64(Date().timeIntervalSince1970))])
            }
        }
    }
}

