import FlintAuth
import Foundation

/// Stands in for the `UIViewController` subclasses Firebase's guides put their snippets in: main-actor
/// isolated, with the guides' `showMessagePrompt(_:)` helper.
@MainActor
class SnippetViewController {
    var lastMessage: String?

    func showMessagePrompt(_ message: String) {
        lastMessage = message
    }
}
