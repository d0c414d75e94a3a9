import FlintWire
import Foundation

/// Changes to a user's display name and photo URL, sent together by `commitChanges`.
/// Only the properties that were assigned are changed; assigning nil removes the value.
public final class UserProfileChangeRequest: NSObject, Sendable {
    private struct Changes: Sendable {
        /// nil: unchanged; `.some(nil)`: remove.
        var displayName: String??
        var photoURL: URL??
    }

    private let user: User
    private let changes = Locked(Changes())

    init(user: User) {
        self.user = user
    }

    /// The new display name.
    public var displayName: String? {
        get { changes[\.displayName] ?? nil }
        set { changes[\.displayName] = .some(newValue) }
    }

    /// The new photo URL.
    public var photoURL: URL? {
        get { changes[\.photoURL] ?? nil }
        set { changes[\.photoURL] = .some(newValue) }
    }

    /// Sends the changes (`accounts:update`) and reloads the user. Does nothing if nothing was assigned.
    public func commitChanges() async throws {
        let changes = changes.withLock { $0 }
        guard changes.displayName != nil || changes.photoURL != nil else { return }
        var request = UpdateAccountRequest()
        var deleted: [String] = []
        switch changes.displayName {
        case .some(.some(let name)): request.displayName = name
        case .some(.none): deleted.append("DISPLAY_NAME")
        case .none: break
        }
        switch changes.photoURL {
        case .some(.some(let url)): request.photoUrl = url.absoluteString
        case .some(.none): deleted.append("PHOTO_URL")
        case .none: break
        }
        request.deleteAttribute = deleted.isEmpty ? nil : deleted
        try await user.updateAccount(request)
    }

    /// Completion-handler form of `commitChanges()`.
    public func commitChanges(completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.commitChanges() }
    }
}
