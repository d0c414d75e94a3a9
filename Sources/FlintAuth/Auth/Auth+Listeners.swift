import Foundation

/// A listener of `Auth.addStateDidChangeListener(_:)`. It runs on the main actor, as FirebaseAuth calls its
/// listeners on the main thread, so a view controller can update its own state in it.
public typealias AuthStateDidChangeListenerBlock = @MainActor @Sendable (Auth, User?) -> Void
/// A listener of `Auth.addIDTokenDidChangeListener(_:)`; it runs on the main actor.
public typealias IDTokenDidChangeListenerBlock = @MainActor @Sendable (Auth, User?) -> Void
/// The handle that removes an auth-state listener.
public typealias AuthStateDidChangeListenerHandle = NSObjectProtocol
/// The handle that removes an ID-token listener.
public typealias IDTokenDidChangeListenerHandle = NSObjectProtocol

extension Notification.Name {
    /// Posted on `NotificationCenter.default` when an `Auth`'s state changes, as FirebaseAuth posts it:
    /// a user signs in or out, or the current user's ID token changes (whenever the ID-token listeners
    /// are told). The notification's `object` is the `Auth`; it is posted on the `Auth`'s `callbackQueue`.
    public static let AuthStateDidChange = Notification.Name("FIRAuthStateDidChangeNotification")
}

extension Auth {
    struct Listener: Sendable {
        enum Kind: Sendable {
            /// Told when the signed-in user changes (sign-in, sign-out, another user).
            case authState
            /// Also told when the current user's ID token changes.
            case idToken
        }

        let handle: ListenerHandle
        let kind: Kind
        let block: @MainActor @Sendable (Auth, User?) -> Void
    }

    final class ListenerHandle: NSObject, Sendable {}

    /// `Notification.Name.AuthStateDidChange`.
    public static let authStateDidChangeNotification = Notification.Name.AuthStateDidChange

    /// Registers `listener`, called on the main actor once right away with the current user,
    /// then each time a user signs in or out. Keep the handle to remove it.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping AuthStateDidChangeListenerBlock) -> AuthStateDidChangeListenerHandle {
        addListener(.authState, listener)
    }

    /// Stops calls to the listener of `listenerHandle`, including calls already queued.
    public func removeStateDidChangeListener(_ listenerHandle: AuthStateDidChangeListenerHandle) {
        removeListener(listenerHandle)
    }

    /// Registers `listener`, called on the main actor once right away with the current user,
    /// then on every sign-in and sign-out and every change of the current user's ID token.
    @discardableResult
    public func addIDTokenDidChangeListener(_ listener: @escaping IDTokenDidChangeListenerBlock) -> IDTokenDidChangeListenerHandle {
        addListener(.idToken, listener)
    }

    /// Stops calls to the listener of `listenerHandle`, including calls already queued.
    public func removeIDTokenDidChangeListener(_ listenerHandle: IDTokenDidChangeListenerHandle) {
        removeListener(listenerHandle)
    }

    /// The signed-in user as an `AsyncSequence`: the current user (or `nil`) first, then the user after each
    /// sign-in and sign-out, as ``addStateDidChangeListener(_:)`` reports them. Each loop over it registers a
    /// listener of its own, removed when the loop ends or its task is cancelled. FirebaseAuth has it from
    /// version 12.12 on iOS 18 and macOS 15; FlintAuth on every platform it supports.
    ///
    /// ```swift
    /// for await user in Auth.auth().authStateChanges {
    ///     print(user?.uid ?? "signed out")
    /// }
    /// ```
    public var authStateChanges: AuthStateChangesSequence { AuthStateChangesSequence(self) }

    /// As ``authStateChanges``, and also after every change of the current user's ID token, as
    /// ``addIDTokenDidChangeListener(_:)`` reports them.
    public var idTokenChanges: IDTokenChangesSequence { IDTokenChangesSequence(self) }

    /// The sequence of ``Auth/authStateChanges``.
    public struct AuthStateChangesSequence: AsyncSequence, Sendable {
        public typealias Element = User?
        private let auth: Auth

        /// The sequence of `auth`'s signed-in users.
        public init(_ auth: Auth) {
            self.auth = auth
        }

        /// Registers a listener for this iteration.
        public func makeAsyncIterator() -> AsyncStream<User?>.Iterator {
            auth.userChanges(.authState).makeAsyncIterator()
        }
    }

    /// The sequence of ``Auth/idTokenChanges``.
    public struct IDTokenChangesSequence: AsyncSequence, Sendable {
        public typealias Element = User?
        private let auth: Auth

        /// The sequence of `auth`'s signed-in users and their ID-token changes.
        public init(_ auth: Auth) {
            self.auth = auth
        }

        /// Registers a listener for this iteration.
        public func makeAsyncIterator() -> AsyncStream<User?>.Iterator {
            auth.userChanges(.idToken).makeAsyncIterator()
        }
    }

    /// A stream fed by a new listener of `kind`; the listener is removed when the stream ends.
    private func userChanges(_ kind: Listener.Kind) -> AsyncStream<User?> {
        AsyncStream { continuation in
            let handle = addListener(kind) { _, user in continuation.yield(user) }
            continuation.onTermination = { _ in self.removeListener(handle) }
        }
    }

    private func addListener(_ kind: Listener.Kind, _ block: @escaping @MainActor @Sendable (Auth, User?) -> Void) -> ListenerHandle {
        let listener = Listener(handle: ListenerHandle(), kind: kind, block: block)
        state.withLock { state in
            state.listeners.append(listener)
            deliver(to: listener, user: state.currentUser)
        }
        return listener.handle
    }

    private func removeListener(_ handle: NSObjectProtocol) {
        state.withLock { state in
            state.listeners.removeAll { $0.handle === handle }
        }
    }

    /// Tells the listeners about the current user if it differs from what they were last told, and
    /// posts `AuthStateDidChange` if the ID token changed. Called with the lock held, so that
    /// notifications are queued in the order of the changes.
    func notifyListeners(_ state: inout State) {
        let user = state.currentUser
        let userID = user?.uid
        let accessToken = user?.snapshot.tokens.accessToken
        let userChanged = userID != state.notifiedUserID
        let tokenChanged = userChanged || accessToken != state.notifiedAccessToken
        state.notifiedUserID = userID
        state.notifiedAccessToken = accessToken
        for listener in state.listeners where (listener.kind == .authState ? userChanged : tokenChanged) {
            deliver(to: listener, user: user)
        }
        if tokenChanged {
            state.callbackQueue.async { [weak self] in
                guard let self else { return }
                NotificationCenter.default.post(name: .AuthStateDidChange, object: self)
            }
        }
    }

    /// Calls `listener` on the main actor, through the main queue so that calls keep the order of the changes.
    private func deliver(to listener: Listener, user: User?) {
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self, self.state.withLock({ $0.listeners.contains { $0.handle === listener.handle } }) else {
                    return
                }
                listener.block(self, user)
            }
        }
    }
}
