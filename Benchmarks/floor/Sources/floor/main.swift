import Foundation
import Hummingbird

/// `floor [--host 127.0.0.1] [--port 8080] [--sqlite-path PATH] [--database-url postgres://…]`: see FloorRoutes for
/// the endpoints and README.md for how Benchmarks/run.sh uses them. `--port 0` lets the kernel pick; the port is
/// printed as `listening on <port>` once the server accepts connections.
struct Options {
    var host = "127.0.0.1"
    var port = 8080
    var sqlitePath = FileManager.default.temporaryDirectory.appendingPathComponent("floor-\(getpid()).sqlite").path
    var databaseURL: String?

    init(_ arguments: ArraySlice<String>) throws(FloorError) {
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw .usage("\(flag) needs a value") }
            switch flag {
            case "--host": host = value
            case "--port":
                guard let number = Int(value), (0...65535).contains(number) else { throw .usage("--port must be 0...65535") }
                port = number
            case "--sqlite-path": sqlitePath = value
            case "--database-url": databaseURL = value
            default: throw .usage("unknown option \(flag); options: --host, --port, --sqlite-path, --database-url")
            }
        }
    }
}

let options: Options
do {
    options = try Options(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("floor: \(error)\n".utf8))
    exit(2)
}
let postgres = try options.databaseURL.map { url throws(FloorError) in try PostgresStore(url: url) }
let routes = FloorRoutes(tokens: try IDTokens(key: try RS256Key()), scrypt: FirebaseScrypt(), sqlite: try SQLiteStore(path: options.sqlitePath), postgres: postgres)
let router = Router()
routes.add(to: router)
let app = Application(
    router: router,
    configuration: .init(address: .hostname(options.host, port: options.port)),
    services: postgres.map { [$0.client] } ?? [],
    onServerRunning: { channel in
        do {
            try await postgres?.prepare()
        } catch {
            FileHandle.standardError.write(Data("floor: PostgreSQL: \(String(reflecting: error))\n".utf8))
            exit(1)
        }
        FileHandle.standardOutput.write(Data("listening on \(channel.localAddress?.port ?? options.port)\n".utf8))
    }
)
try await app.runService()
