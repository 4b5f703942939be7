import RatecardSupport

/// The steps every command that changes what is live shares, in their order (ARCHITECTURE.md, "The flow of a publish"):
/// `begin` takes the lock, recovers what a crash left and checks that live is what the caller
/// expected; the caller puts what the new release needs into the store; `makeLive` flips the
/// pointer, journals the swap and brings the bridge lines along, all under the one lock.
///
/// Publish, promote and rollback each take these steps once; what differs between them is only
/// what they put into the store before the flip.
struct LiveChange {
    let root: any ReleaseStore
    let lease: any ReleaseLease
    /// The release the pointer names under the lock (nil: nothing published yet).
    let live: String?
    /// The file lists of the releases this change's statements name, each made at most once.
    let lists: LiveStatements.FileLists

    /// Takes the lock for `command`, recovers the store and repairs the bridge lines (skipped for a
    /// dry run, which changes nothing), then checks `expectLive` (`"none"`: nothing is live).
    /// `crashPoints` are the instants tests may kill at: after the lock, after recovery. The live
    /// release must exist unless `pointerOnly` (a rollback mends a pointer to a removed release).
    static func begin(
        _ root: any ReleaseStore, command: String, wait: Bool, onWait: (Message) -> Void = { _ in }, expectLive: String?, recover: Bool = true,
        pointerOnly: Bool = false, crashPoints: (locked: String?, recovered: String?) = (nil, nil)
    ) throws -> LiveChange {
        // A signed environment without a usable key: refused before anything is written.
        if recover { try LiveStatements.requireSigner(root) }
        let lease = try root.acquireLock(command: command, wait: wait, onWait: onWait)
        let lists = LiveStatements.FileLists()
        do {
            if let locked = crashPoints.locked { CrashPoint.hit(locked) }
            if recover {
                try root.recover()
                try BridgeLines.repair(root: root)
                try LiveStatements.repair(root: root, lists: lists)
            }
            if let recovered = crashPoints.recovered { CrashPoint.hit(recovered) }
            let change = LiveChange(root: root, lease: lease, live: try pointerOnly ? root.pointer() : root.live(), lists: lists)
            try change.expect(expectLive)
            return change
        } catch {
            lease.release()
            throw error
        }
    }

    /// Throws unless `expectLive` (if given) is live (`"none"`: nothing is).
    func expect(_ expectLive: String?) throws {
        guard let expectLive, expectLive != (live ?? "none") else { return }
        throw ConflictError(
            "live is \(live ?? "none"), not \(expectLive) as expected (--expect-live, or the release the approval gate compared with); nothing was changed",
            ko: "라이브 릴리스가 예상한 \(expectLive)이(가) 아니라 \(live ?? "없음")입니다 (--expect-live, 또는 승인 관문이 비교한 릴리스); 아무것도 바꾸지 않았습니다")
    }

    /// Gives up the lock.
    func end() { lease.release() }

    /// Throws when the lock is no longer held (it is renewed while a long upload runs).
    func confirm() throws { try lease.confirm() }

    /// Flips the pointer from `live` to `id`, journals it with `fields`, and rewrites the bridge
    /// lines. Once the pointer has flipped nothing undoes it: a journal that cannot be written is
    /// recorded by the next run's recovery, and what the store keeps beside the pointer (a bucket's
    /// `index.html`) that could not follow is reported after the lines are written (exit 4, the
    /// release live) and repaired by the next command.
    /// `failed` is called when the pointer could not be flipped (live is unchanged); `warn` with
    /// what went wrong after the flip that does not undo it (the journal entry not written).
    func makeLive(
        _ id: String, journal fields: [String: JSON], bridgeRequires: Int? = nil, failed: (any Error) -> Void = { _ in }, warn: (Message) -> Void
    ) throws {
        var afterFlip: AfterFlipError?
        do {
            try lease.confirm()
            try root.flip(expected: live, to: id)
        } catch let error as AfterFlipError {
            afterFlip = error
        } catch {
            failed(error)
            throw error
        }
        Trace.mark("swapped to \(id)")
        // The statement's sequence is journaled with the swap, before live.json is written.
        let sequence = try? LiveStatements.nextSequence(root: root)
        var fields = fields
        if let sequence { fields["live_sequence"] = .int(sequence) }
        // The list the statement will name, journaled with the swap: the next change takes it
        // from there instead of making it again.
        if let record = try? lists.record(id, root: root) { fields["file_list"] = record.json }
        if let warning = root.journalAfterSwap(fields) { warn(warning) }
        CrashPoint.hit("journaled")
        try BridgeLines.updateAfterChange(root: root, live: id, known: bridgeRequires.map { [id: $0] } ?? [:])
        CrashPoint.hit("lines-written")
        try LiveStatements.writeAfterChange(root: root, live: id, sequence: sequence, lists: lists)
        if let afterFlip { throw OperationalError(afterFlip.text) }
    }
}
