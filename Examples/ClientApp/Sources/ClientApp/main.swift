import FlintAuth
import Foundation

// What an app's start-up does: configure, point at the local server in emulator mode, watch the signed-in user.
FirebaseApp.configure(options: FirebaseOptions(apiKey: "demo-key", projectID: "demo-flint"))
let auth = Auth.auth()
auth.useEmulator(withHost: "127.0.0.1", port: 9099)
let handle = auth.addStateDidChangeListener { _, user in
    print(user.map { "signed in as \($0.uid)" } ?? "signed out")
}
auth.removeStateDidChangeListener(handle)
