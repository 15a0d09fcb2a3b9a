/// Members grouped by entity name, groups in the order their names first come.
///
/// A save's inserts come in runs of one entity, so the group of the last name is tried
/// first, and comparing a name with the same string is a word compare: a dictionary by name
/// hashed every row's name, several times a row.
struct EntityRuns<Member> {
    private(set) var groups: [(name: String, members: [Member])] = []
    private var last = -1

    /// The group of `name`, made (at the end) when there is none yet.
    mutating func group(named name: String) -> Int {
        if last >= 0, groups[last].name == name { return last }
        if let found = groups.firstIndex(where: { $0.name == name }) {
            last = found
        } else {
            groups.append((name, []))
            last = groups.count - 1
        }
        return last
    }

    /// Adds `member` to the group of `name`.
    mutating func append(_ member: Member, named name: String) {
        groups[group(named: name)].members.append(member)
    }

    mutating func append(_ member: Member, toGroup group: Int) {
        groups[group].members.append(member)
    }
}
