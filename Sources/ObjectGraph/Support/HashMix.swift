/// The finalizer of MurmurHash3 (fmix64): every input bit moves every output bit. What
/// ObjectGraph hashes its hottest keys with (object IDs, objects by identity) in place of
/// SipHash, whose setup and finalization cost ten times as much for one word.
@inline(__always)
func mixedHashBits(_ bits: UInt64) -> UInt64 {
    var x = bits
    x ^= x >> 33
    x = x &* 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x = x &* 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return x
}
