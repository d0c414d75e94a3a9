import Foundation

/// Sharing the signed-in user with other apps through a keychain access group.
extension Auth {
    /// The keychain access group the signed-in user is kept in, shared with the group's other apps
    /// (see `useUserAccessGroup(_:)`); nil, the default, while the user is kept in the instance's own store.
    public var userAccessGroup: String? { state[\.userAccessGroup] }

    /// Keeps the signed-in user in keychain access group `accessGroup` (a keychain-sharing group of the
    /// app's entitlements, such as `TEAMID.com.example.shared`), where the group's other apps of the
    /// same project find it (under Keychain service `firebase_auth_<API key>`); nil goes back to the
    /// instance's own store. The choice is remembered across launches.
    ///
    /// As in FirebaseAuth, the current user becomes the one stored for `accessGroup` (nil if there is
    /// none), and moving from the own store to a group deletes the user from the own store. To carry the
    /// current user over, pass it to `updateCurrentUser(_:)` afterwards.
    ///
    /// Keychain access groups exist on Apple platforms only: elsewhere a group fails with `keychainError`
    /// and changes nothing, and nil is accepted. Throws `keychainError` if a store cannot be read or written.
    public func useUserAccessGroup(_ accessGroup: String?) throws {
        let store = try accessGroup.map(accessGroupStore) ?? credentialStore
        let user = try storedUser(in: store)
        try state.withLock { state in
            do {
                if let accessGroup {
                    try credentialStore.saveData(Data(accessGroup.utf8), forKey: accessGroupKey)
                    if state.userAccessGroup == nil {
                        try credentialStore.removeData(forKey: storeKey)
                    }
                } else {
                    try credentialStore.removeData(forKey: accessGroupKey)
                }
            } catch {
                throw AuthErrorUtils.keychainError(underlying: error)
            }
            state.store = store
            state.userAccessGroup = accessGroup
            state.currentUser = user
            notifyListeners(&state)
        }
    }

    /// The access group last chosen with `useUserAccessGroup(_:)`, as remembered in the own store.
    var storedAccessGroup: String? {
        (try? credentialStore.loadData(forKey: accessGroupKey)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The own store's key of the chosen access group.
    private var accessGroupKey: String { storeKey + "_access_group" }
}
