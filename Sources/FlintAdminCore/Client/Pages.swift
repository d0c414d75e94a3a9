/// Pages of a listing (users, tenants, provider configs), each fetched when the iteration reaches it: the first with no
/// page token, the next with the token the last gave, until one gives none.
public struct Pages<Element: Sendable>: AsyncSequence, Sendable {
    /// One page after `pageToken`, and the token of the next (nil or empty after the last).
    typealias Fetch = @Sendable (_ pageToken: String?) async throws -> (page: [Element], next: String?)
    let fetch: Fetch

    init(_ fetch: @escaping Fetch) { self.fetch = fetch }

    public func makeAsyncIterator() -> Iterator { Iterator(fetch: fetch) }

    public struct Iterator: AsyncIteratorProtocol {
        let fetch: Fetch
        private var nextToken: String?
        private var finished = false

        init(fetch: @escaping Fetch) { self.fetch = fetch }

        public mutating func next() async throws -> [Element]? {
            guard !finished else { return nil }
            // Only the first page is asked for without a token.
            let isFirst = nextToken == nil
            let (page, next) = try await fetch(nextToken)
            nextToken = next.flatMap { $0.isEmpty ? nil : $0 }
            finished = nextToken == nil
            // An empty last page ends the listing; a listing with nothing in it still gives one empty page.
            if page.isEmpty && finished && !isFirst { return nil }
            return page
        }
    }
}
