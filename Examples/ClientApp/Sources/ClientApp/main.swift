import FlintAuth
import Foundation

func status(of user: User?) -> String {
    user.map { "signed in as \($0.uid)" } ?? "signed out"
}

// What an app's start-up does: configure, point at the local server in emulator mode, watch the signed-in user.
FirebaseApp.configure(options: FirebaseOptions(apiKey: "demo-key", projectID: "demo-flint"))
let auth = Auth.auth()
auth.useEmulator(withHost: "127.0.0.1", port: 9099)
let handle = auth.addStateDidChangeListener { _, user in
    print(status(of: user))
}
auth.removeStateDidChangeListener(handle)

// The same as an async sequence: the loop's listener is removed when its task is cancelled.
let watcher = Task {
    for await user in auth.authStateChanges {
        print(status(of: user))
    }
}
watcher.cancel()
