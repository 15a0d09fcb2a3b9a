import CCrypto

/// The key a session is stored under: the SHA-256 of its ID, in hex.
///
/// The session ID is the visitor's credential (the cookie). The database holds only its
/// digest, so whoever reads the database, a backup of it or a replica cannot take over a
/// visitor's session; a server given the cookie finds the record by digesting it again.
/// (The IDs are 256 random bits: no salt or slow hash is needed against guessing.)
enum StoredSessionKey {
    /// The stored key of the session `sid`.
    static func of(_ sid: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(sid.utf8)
        let done = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest with SHA-256 fails only when libcrypto cannot allocate. A fresh random
        // key then matches no record (the visitor is treated as new) and is shared with no
        // other session, rather than a crash.
        guard done == 1 else { return "undigested-" + Tokens.random() }
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
