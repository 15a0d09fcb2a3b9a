import Foundation
import ObjectGraph

extension InvoicesStack {
    /// When saves reach the file (`--persist`).
    public var persistMode: PersistMode { persistence.mode }

    /// Saves a scratchpad's changes through main and the writer as one unit: to the file
    /// before returning (immediate persistence), or into the writer, which writes them within
    /// its interval (deferred).
    ///
    /// Whatever the outcome but `.saved`, main and the writer are exactly as they were and the
    /// scratchpad keeps its changes; a conflict with another process refreshes main and the
    /// writer from the file, so a resolved retry meets what is really there. Saves of sibling
    /// scratchpads run one after another (ObjectGraph's `saveToStore()`).
    ///
    /// - Parameter policy: how a property the visitor changed that was also changed meanwhile
    ///   is resolved: `.error` (the default) reports it; the trump policies carry out a choice.
    public func save(_ scratchpad: ManagedObjectContext, policy: MergePolicy = .error) async -> SaveOutcome {
        await scratchpad.perform(schedule: .enqueued) { scratchpad.mergePolicy = policy }
        defer { scratchpad.perform { scratchpad.mergePolicy = .error } }
        var outcome = await saveNumbering(scratchpad)
        // The file's row changed, but in none of the properties this save changes: main and
        // the writer are refreshed from the file now, so the same save merges quietly, as it
        // would have had the other change arrived (by history) a moment earlier.
        for _ in 0..<2 {
            guard case .conflict(let conflicts) = outcome,
                  conflicts.allSatisfy({ !$0.deletedElsewhere && $0.properties.isEmpty }) else { break }
            outcome = await saveNumbering(scratchpad)
        }
        return outcome
    }

    /// How many times a save numbers again after another server took the numbers it gave.
    static let numberingAttempts = 20

    /// Gives numbers to the invoices that left draft (``InvoiceNumbering``) and saves. When
    /// another server took those numbers first (its commit moved the year's sequence), the
    /// numbers are taken back and given again from the sequence's new value; whatever else
    /// stops the save takes them back too, so the scratchpad holds no stale number.
    ///
    /// A save that gives numbers reaches the file before it is acknowledged, even with
    /// deferred persistence: the sequence is shared by every server, so it is only moved in
    /// the same transaction as the invoice that takes the number.
    ///
    /// The process's saves number one at a time (``numberingGate``): numbers given while
    /// another save of this process waits to commit would only meet its conflict.
    private func saveNumbering(_ scratchpad: ManagedObjectContext) async -> SaveOutcome {
        await numberingGate.run { await self.numberedSave(scratchpad) }
    }

    private func numberedSave(_ scratchpad: ManagedObjectContext) async -> SaveOutcome {
        let numbering = self.numbering
        var outcome = SaveOutcome.saved
        for _ in 0..<Self.numberingAttempts {
            let assignment: NumberAssignment
            do {
                assignment = try await scratchpad.perform(schedule: .enqueued) { try numbering.assignNumbers(in: scratchpad) }
            } catch {
                logger.error("Numbering of \(scratchpad.name ?? "a scratchpad") failed, nothing was saved: \(error)")
                return .failed(StoreFailureReason.describe(error))
            }
            outcome = await saveOnce(scratchpad, immediately: !assignment.isEmpty)
            if case .saved = outcome { return outcome }
            guard !assignment.isEmpty else { return outcome }
            await scratchpad.perform(schedule: .enqueued) { assignment.revert(in: scratchpad) }
            switch outcome {
            case .conflict(let conflicts) where assignment.explains(conflicts): break
            case .duplicate(let violation) where assignment.explains(violation): break
            default: return outcome
            }
            logger.info("Another server gave invoice numbers first; \(scratchpad.name ?? "a scratchpad") numbers again")
        }
        logger.warning("Save of \(scratchpad.name ?? "a scratchpad") gave up numbering after \(Self.numberingAttempts) attempts")
        return outcome
    }

    private func saveOnce(_ scratchpad: ManagedObjectContext, immediately: Bool = false) async -> SaveOutcome {
        do {
            switch immediately ? .immediate : persistence.mode {
            case .immediate:
                try await scratchpad.saveToStore()
            case .deferred:
                // The writer saves later: the primary keys are taken now, so the answer can
                // name the new object's page.
                try await scratchpad.perform(schedule: .enqueued) {
                    try scratchpad.obtainPermanentIDs(for: Array(scratchpad.insertedObjects))
                }
                try await scratchpad.save(into: writer)
                persistence.writerChanged()
            }
            return .saved
        } catch SaveError.validationFailed(let failures) {
            return .invalid(failures)
        } catch SaveError.uniquenessViolation(let violation) {
            return .duplicate(violation)
        } catch SaveError.mergeConflict(let conflicts) {
            logger.info("Save of \(scratchpad.name ?? "a scratchpad") refused: \(SaveError.mergeConflict(conflicts))")
            return .conflict(conflicts)
        } catch SaveError.storeFailure(let error), let error as StoreError {
            return storeFailure(error, saving: scratchpad)
        } catch {
            logger.error("Save of \(scratchpad.name ?? "a scratchpad") failed, nothing was saved: \(error)")
            return .failed(StoreFailureReason.describe(error))
        }
    }

    private func storeFailure(_ error: StoreError, saving scratchpad: ManagedObjectContext) -> SaveOutcome {
        if StoreOutage.isTemporary(error) {
            logger.warning("Save of \(scratchpad.name ?? "a scratchpad") refused, nothing was saved: \(error)")
            return .busy(error)
        }
        logger.error("Save of \(scratchpad.name ?? "a scratchpad") failed, nothing was saved: \(error)")
        return .failed(StoreFailureReason.describe(error))
    }

    /// The acknowledged changes the writer could not write and set aside (deferred
    /// persistence), oldest first.
    public var setAsideChanges: [SetAsideChange] { persistence.setAside }

    /// Stops writing: flushes what the writer holds, and lists every acknowledged change that
    /// is not on disk (set aside, or left in the writer by a failed flush). Empty: all on disk.
    public func stopPersisting() async -> [String] {
        await persistence.stop()
    }
}
