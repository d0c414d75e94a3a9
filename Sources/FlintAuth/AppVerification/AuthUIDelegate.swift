import Foundation

#if canImport(UIKit) && canImport(SafariServices)
import SafariServices
import UIKit

/// Presents the web pages of Auth (the reCAPTCHA fallback of phone sign-in) from the app's UI, as in
/// FirebaseAuth: a view controller of the app usually conforms, and FlintAuth presents an
/// `SFSafariViewController` through it. Calls arrive on the main actor.
///
/// Flint: without a delegate, `verifyPhoneNumber` cannot show the page and fails with `appNotVerified`
/// (FirebaseAuth would look for the top view controller itself).
@MainActor
public protocol AuthUIDelegate: NSObjectProtocol {
    /// Presents `viewControllerToPresent` modally.
    func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)?)
    /// Dismisses the view controller presented last.
    func dismiss(animated flag: Bool, completion: (() -> Void)?)
}

/// Shows pages in an `SFSafariViewController` presented through the app's delegate.
final class SafariWebPagePresenter: WebPagePresenter, @unchecked Sendable {
    // @unchecked Sendable: `delegate` and `controller` are only touched on the main actor.
    private let delegate: any AuthUIDelegate
    private var controller: SafariControllerDelegate?

    init(delegate: any AuthUIDelegate) {
        self.delegate = delegate
    }

    func present(_ url: URL, userDidCancel: @escaping @Sendable () -> Void) {
        Task { @MainActor in
            let controller = SafariControllerDelegate(url: url, userDidCancel: userDidCancel)
            self.controller = controller
            self.delegate.present(controller.safari, animated: true, completion: nil)
        }
    }

    func dismiss() {
        Task { @MainActor in
            guard self.controller != nil else { return }
            self.controller = nil
            self.delegate.dismiss(animated: true, completion: nil)
        }
    }
}

/// The Safari view controller of one page and the delegate that reports the user closing it.
@MainActor
final class SafariControllerDelegate: NSObject, SFSafariViewControllerDelegate {
    let safari: SFSafariViewController
    private let userDidCancel: @Sendable () -> Void

    init(url: URL, userDidCancel: @escaping @Sendable () -> Void) {
        safari = SFSafariViewController(url: url)
        self.userDidCancel = userDidCancel
        super.init()
        safari.delegate = self
    }

    nonisolated func safariViewControllerDidFinish(_ controller: SFSafariViewController) {
        userDidCancel()
    }
}

/// The presenter of `delegate`, or nil without one.
func makeWebPagePresenter(_ delegate: (any AuthUIDelegate)?, callbackQueue: DispatchQueue) -> (any WebPagePresenter)? {
    delegate.map { SafariWebPagePresenter(delegate: $0) }
}
#else

/// Flint: shows the web pages of Auth (the reCAPTCHA fallback of phone sign-in) where UIKit does not
/// exist. FirebaseAuth's delegate presents view controllers; this one receives the page's URL and shows
/// it however the platform can, e.g. by opening the default browser. The page ends by opening the app's
/// callback URL (`{scheme}://firebaseauth/link?…`), which the app passes to `Auth.canHandle(_:)`.
///
/// Calls arrive on the `Auth`'s callback queue.
public protocol AuthUIDelegate: AnyObject, Sendable {
    /// Shows `url` to the user. If the user gives up (closes the page) before it finishes, call
    /// `userDidCancel`: the waiting `verifyPhoneNumber` then fails with `webContextCancelled`.
    func present(_ url: URL, userDidCancel: @escaping @Sendable () -> Void)
    /// Takes the page away: the app received the callback URL.
    func dismiss()
}

/// Forwards to the app's delegate on the callback queue.
struct DelegateWebPagePresenter: WebPagePresenter {
    let delegate: any AuthUIDelegate
    let queue: DispatchQueue

    func present(_ url: URL, userDidCancel: @escaping @Sendable () -> Void) {
        queue.async { delegate.present(url, userDidCancel: userDidCancel) }
    }

    func dismiss() {
        queue.async { delegate.dismiss() }
    }
}

/// The presenter of `delegate`, or nil without one.
func makeWebPagePresenter(_ delegate: (any AuthUIDelegate)?, callbackQueue: DispatchQueue) -> (any WebPagePresenter)? {
    delegate.map { DelegateWebPagePresenter(delegate: $0, queue: callbackQueue) }
}
#endif
