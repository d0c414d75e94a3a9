import _CryptoExtras
import FlintServer
import NIOConcurrencyHelpers

/// RSA keys for the test process: the first `size` are made as asked, then they are handed out again in the same
/// order. Making an RSA-2048 key costs about half a second of CPU on a slow machine, and the suite starts hundreds
/// of servers (each makes a signing key) and fake providers (each makes two): without the pool, key making was a
/// large share of the suite's CPU.
///
/// Between two hand-outs of the same key come `size - 1` others, so one server's rotations (a test makes a few) and
/// servers a test starts one after another never share a key. Servers of unrelated tests may: a test whose check
/// relied on two such servers' keys differing would fail, not pass by mistake (keys shared make more signatures
/// verify, never fewer).
public final class PooledRSAKeys: RSAKeySource {
    public static let shared = PooledRSAKeys(size: 48)

    private let size: Int
    private let state = NIOLockedValueBox<(keys: [_RSA.Signing.PrivateKey], next: Int)>(([], 0))

    public init(size: Int) {
        self.size = size
    }

    public func makeKey() throws -> _RSA.Signing.PrivateKey {
        let reused = state.withLockedValue { state -> _RSA.Signing.PrivateKey? in
            guard state.keys.count == size else { return nil }
            defer { state.next = (state.next + 1) % size }
            return state.keys[state.next]
        }
        if let reused { return reused }
        // Made outside the lock, so several tests make theirs at once; more than `size` may be made meanwhile.
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        state.withLockedValue { state in
            if state.keys.count < size { state.keys.append(key) }
        }
        return key
    }
}
