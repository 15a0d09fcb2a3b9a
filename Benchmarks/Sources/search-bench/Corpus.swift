import Foundation
import ObjectGraph

/// The benchmark's model: invoices whose identifier and notes are searchable.
final class SearchBenchClient: ManagedObject {
    @Attribute var name: String
    @Relationship(inverse: \SearchBenchInvoice.client, deleteRule: .cascade) var invoices: Set<SearchBenchInvoice>
}

final class SearchBenchInvoice: ManagedObject {
    @Attribute(.searchable) var identifier: String
    @Attribute(.searchable) var notes: String?
    @Attribute var status: String = "draft"
    @Relationship var client: SearchBenchClient?
}

/// Notes made of pseudo-words (consonant-vowel syllables, Zipf-distributed), with three
/// English words planted at known rates. A pseudo-word never contains a planted word (they
/// need letters or clusters the syllables lack), so `LIKE '%word%'` and the index find the
/// same rows.
struct Corpus {
    /// The planted words and the share of notes holding each.
    static let planted: [(word: String, rate: Double)] = [("zeppelin", 0.001), ("widget", 0.05), ("invoice", 0.3)]

    private var state: UInt64
    private let vocabulary: [String]
    private let cumulative: [Double]

    init(seed: UInt64) {
        state = seed
        let consonants = Array("bdfghklmnprstv"), vowels = Array("aeiou")
        var words = Set<String>()
        var generator = SplitMix(state: seed ^ 0x9E37_79B9)
        while words.count < 5_000 {
            let syllables = 1 + Int(generator.next() % 3)
            words.insert(String((0..<syllables).flatMap { _ in
                [consonants[Int(generator.next() % 14)], vowels[Int(generator.next() % 5)]]
            }))
        }
        vocabulary = words.sorted()
        var total = 0.0
        cumulative = vocabulary.indices.map { total += 1 / Double($0 + 1); return total }
    }

    /// The notes of the next invoice: 8 to 24 words.
    mutating func notes() -> String {
        var generator = SplitMix(state: state)
        defer { state = generator.state }
        var words = (0..<(8 + Int(generator.next() % 17))).map { _ -> String in
            let target = Double(generator.next() % 1_000_000) / 1_000_000 * (cumulative.last ?? 1)
            let index = cumulative.partitioningIndex { $0 >= target }
            return vocabulary[min(index, vocabulary.count - 1)]
        }
        for (word, rate) in Self.planted where Double(generator.next() % 1_000_000) / 1_000_000 < rate {
            words.insert(word, at: Int(generator.next() % UInt64(words.count)))
        }
        return words.joined(separator: " ")
    }
}

struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, which must be false then true.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
