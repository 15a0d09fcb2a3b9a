import Foundation
import ObjectGraph
import WebServer

/// Forms nested in others: objects added inside an owner's form (a new client's invoices),
/// each with a form of its own in the owner's scratchpad, saved with the owner or not at all.
/// One mechanism for any owner and destination the field tables name (``NestedFormSpec``).
extension FormRoutes {
    /// `add-invoice`: the button adding a destination of `nested`.
    func addAction(_ nested: FormTable.Nested) -> String {
        "add-" + (catalog.table(forEntity: nested.destination)?.noun ?? nested.destination.lowercased())
    }

    /// The owner's form of a nested form.
    func owner(of form: EditForm) -> FormTable? {
        guard form.parentFormID != nil else { return nil }
        return catalog.tables.first { $0.nested.contains { $0.destination == form.entity } }
    }

    /// The fields a nested form hides: the relationship back to its owner, which is fixed.
    func hidden(_ form: EditForm) -> Set<String> {
        guard let owner = owner(of: form) else { return [] }
        return Set(owner.nested.filter { $0.destination == form.entity }.map(\.inverse))
    }

    /// Applies the owner's fields, inserts a destination for it in the same scratchpad and
    /// opens the destination's form.
    func addNested(_ nested: FormTable.Nested, to form: EditForm, input: [String: String],
                   session: Session) async -> Response {
        guard let table = catalog.table(forEntity: form.entity),
              let destination = catalog.table(forEntity: nested.destination) else { return gone(session) }
        let scratchpad = form.scratchpad, ownerID = form.objectID, inverse = nested.inverse
        let childID: ObjectID? = await scratchpad.perform {
            guard let owner = try? scratchpad.existingObject(with: ownerID) else { return nil }
            _ = table.apply(input, to: owner, in: scratchpad)
            let childID = destination.makeNew(scratchpad, [:])
            try? scratchpad.existingObject(with: childID).setValue(owner, forKey: inverse)
            return childID
        }
        guard let childID else { return deletedMeanwhile(form, session: session) }
        let child = EditForm(id: EditForm.nestedID(in: form), entity: destination.entityName, noun: destination.noun,
                             scratchpad: scratchpad, objectID: childID, isNew: true, returnPath: form.path,
                             section: form.section, parentFormID: form.id)
        return await open(child, session: session)
    }

    /// `cancel` in a nested form: its object leaves the scratchpad; back to the owner's form.
    func cancelNested(_ form: EditForm, session: Session) async -> Response {
        let scratchpad = form.scratchpad, objectID = form.objectID
        await scratchpad.perform {
            if let object = scratchpad.registeredObject(for: objectID) { scratchpad.delete(object) }
        }
        sessions.removeForm(form.id, from: session.id, reason: .cancelled)
        return .redirect(to: form.returnPath)
    }

    /// The sections of a form listing what was added in it, read from its scratchpad.
    func nestedSections(of form: EditForm, table: FormTable, in session: Session) async -> [NestedSection] {
        var sections: [NestedSection] = []
        for nested in table.nested {
            guard let destination = catalog.table(forEntity: nested.destination) else { continue }
            let children = session.forms.filter { $0.parentFormID == form.id && $0.entity == nested.destination }
                .map { ($0.path, $0.objectID) }
            let scratchpad = form.scratchpad
            let rows: [NestedRow] = await scratchpad.perform {
                children.compactMap { path, id in
                    guard let object = scratchpad.registeredObject(for: id), !object.isDeleted else { return nil }
                    let title = destination.title(object)
                    return NestedRow(formPath: path, title: title.isEmpty ? "(no number yet)" : title,
                                     summary: destination.summary(object))
                }
            }
            sections.append(NestedSection(relationship: nested.relationship, title: nested.title,
                                          action: addAction(nested), addLabel: nested.addLabel, rows: rows,
                                          hasRows: !rows.isEmpty))
        }
        return sections
    }
}
