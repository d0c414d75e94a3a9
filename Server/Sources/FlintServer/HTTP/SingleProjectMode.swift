import Hummingbird
import Logging
import NIOConcurrencyHelpers

/// What emulator mode does with a request whose path names another project than the served one, as the official
/// emulator's `singleProjectMode`. `firebase emulators:start` runs its Auth emulator with `warning` unless
/// `firebase.json` sets `emulators.singleProjectMode` to false (then `off`); `error` is what its own tests also run.
public enum SingleProjectMode: String, Sendable, CaseIterable {
    /// Refused with the official emulator's 400 and sentence.
    case error
    /// Served, and a warning logged (once per project named; the official emulator logs one per request).
    case warning
    /// Served, as every other project is.
    case off
}

/// Applies `SingleProjectMode` in front of every route (emulator mode only). Only a path names a project
/// (`…/projects/{p}/…`, `…/projects/{p}:…`); a request that names none acts on the served project anyway.
struct SingleProjectMiddleware<Context: RequestContext>: RouterMiddleware {
    let mode: SingleProjectMode
    let projectID: String
    let logger: Logger
    /// The projects a warning has been logged for.
    private let warned = NIOLockedValueBox(Set<String>())

    init(mode: SingleProjectMode, projectID: String, logger: Logger) {
        self.mode = mode
        self.projectID = projectID
        self.logger = logger
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard mode != .off, let requested = Self.project(in: request.uri.path), requested != projectID else {
            return try await next(request, context)
        }
        // The official emulator's own words, quotes and all.
        let message = "Multiple projectIds are not recommended in single project mode. Requested project ID \(requested), "
            + "but the emulator is configured for \(projectID). To opt-out of single project mode add/set the "
            + "'\"singleProjectMode\"' false' property in the firebase.json emulators config."
        if mode == .error { throw FlintError(sentence: message, status: .badRequest, reason: "invalid") }
        if warned.withLockedValue({ $0.insert(requested).inserted }) { logger.warning("\(message)") }
        return try await next(request, context)
    }

    /// The project ID a path names after `projects/`, if any.
    static func project(in path: String) -> String? {
        let segments = path.split(separator: "/")
        guard let index = segments.firstIndex(of: "projects"), index + 1 < segments.count else { return nil }
        let id = segments[index + 1].prefix { $0 != ":" }
        return id.isEmpty ? nil : String(id)
    }
}
