import NIOCore

/// One SMTP reply: a three-digit code and its text lines (`250-first`, `250 last` → two lines).
struct SMTPReply: Sendable, Equatable {
    var code: Int
    var lines: [String]

    /// The text, lines joined by spaces, shortened for error details.
    var text: String { String(lines.joined(separator: " ").prefix(300)) }
}

/// Why a connection stopped being usable (other than a reply the client did not expect).
enum SMTPTransportError: Error, CustomStringConvertible {
    case timedOut(TimeAmount)
    case closed
    case malformedReply(String)
    case lineTooLong
    case tooManyLines

    var description: String {
        switch self {
        case let .timedOut(limit): "no reply within \(limit.nanoseconds / 1_000_000) ms"
        case .closed: "the server closed the connection"
        case let .malformedReply(line): "malformed reply line: \(line.prefix(100))"
        case .lineTooLong: "reply line too long"
        case .tooManyLines: "reply of too many lines"
        }
    }
}

/// Splits the server's bytes into CRLF lines and lines into replies; hands each reply to the one
/// waiting `nextReply`, or keeps it until asked. Lives on its channel's event loop (use it from there).
final class SMTPReplyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// Longer reply lines are an error (RFC 5321 allows 512 octets).
    static let maximumLineLength = 4096
    /// Replies of more lines are an error (an EHLO reply, the longest, has a line per extension: a dozen or so).
    static let maximumLinesPerReply = 100

    private var pending = ByteBuffer()
    private var lines: [String] = []
    private var replies: [SMTPReply] = []
    private var waiter: (promise: EventLoopPromise<SMTPReply>, timeout: Scheduled<Void>)?
    /// The first thing that went wrong on the connection, if anything did.
    private(set) var failure: (any Error)?

    /// The next reply; fails after `timeout` (closing the connection), or when the connection fails or closes.
    func nextReply(on eventLoop: any EventLoop, channel: any Channel, timeout: TimeAmount) -> EventLoopFuture<SMTPReply> {
        eventLoop.preconditionInEventLoop()
        if !replies.isEmpty { return eventLoop.makeSucceededFuture(replies.removeFirst()) }
        if let failure { return eventLoop.makeFailedFuture(failure) }
        precondition(waiter == nil, "one reply at a time")
        let promise = eventLoop.makePromise(of: SMTPReply.self)
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        let scheduled = eventLoop.scheduleTask(in: timeout) {
            bound.value.fail(SMTPTransportError.timedOut(timeout))
            channel.close(promise: nil)
        }
        waiter = (promise, scheduled)
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        pending.writeBuffer(&bytes)
        do {
            while let newline = pending.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                let length = newline - pending.readerIndex
                if length > Self.maximumLineLength { throw SMTPTransportError.lineTooLong }
                var line = pending.readString(length: length) ?? ""
                pending.moveReaderIndex(forwardBy: 1)
                if line.hasSuffix("\r") { line.removeLast() }
                try take(line)
            }
            if pending.readableBytes > Self.maximumLineLength { throw SMTPTransportError.lineTooLong }
            pending.discardReadBytes()
        } catch {
            fail(error)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SMTPTransportError.closed)
        context.fireChannelInactive()
    }

    private func take(_ line: String) throws {
        let scalars = Array(line.utf8)
        guard scalars.count >= 3, scalars.prefix(3).allSatisfy({ (0x30...0x39).contains($0) }),
              let code = Int(String(decoding: scalars.prefix(3), as: UTF8.self))
        else { throw SMTPTransportError.malformedReply(line) }
        let separator: UInt8? = scalars.count > 3 ? scalars[3] : nil
        guard separator == nil || separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw SMTPTransportError.malformedReply(line)
        }
        lines.append(scalars.count > 4 ? String(decoding: scalars.dropFirst(4), as: UTF8.self) : "")
        guard separator != UInt8(ascii: "-") else {
            if lines.count > Self.maximumLinesPerReply { throw SMTPTransportError.tooManyLines }
            return
        }
        let reply = SMTPReply(code: code, lines: lines)
        lines = []
        if let waiter {
            self.waiter = nil
            waiter.timeout.cancel()
            waiter.promise.succeed(reply)
        } else {
            replies.append(reply)
        }
    }

    /// Records the first failure and fails the waiter, if any.
    private func fail(_ error: any Error) {
        if failure == nil { failure = error }
        if let waiter {
            self.waiter = nil
            waiter.timeout.cancel()
            waiter.promise.fail(failure ?? error)
        }
    }
}
