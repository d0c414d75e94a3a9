import FlintHTTP

/// FlintAuth's names for the transport it shares with FlintAdmin (see `FlintHTTP`).
typealias AuthHTTPClient = HTTPTransport
typealias URLSessionHTTPClient = URLSessionTransport
