import Glibc
import RatecardCore
import RatecardSupport

/// Rollback, promotion and pruning: the operations that move the pointer among existing
/// releases, on any `ReleaseStore`.
public struct ReleaseHistory {
    public var root: any ReleaseStore

    public init(root: any ReleaseStore) { self.root = root }

    /// How a rollback checked the release it made live.
    public enum Check: Equatable, Sendable {
        /// version.json matched the seal journaled when every file was verified from disk.
        case sealed
        /// Every file was re-hashed against version.json (`--verify`, or no seal in the journal).
        case rehashed(files: Int)
    }

    /// What a rollback did (or, for a dry run, would do).
    public struct Rollback: Equatable, Sendable {
        public var from: String
        public var to: String
        public var check: Check
        /// Whether the target had been marked bad (and `force` allowed it); it is bad no longer.
        public var targetWasBad: Bool
        /// Whether the release left is marked bad.
        public var markedBad: Bool
        /// The release whose staged rollout the rollback halted first (kept good), if one was in progress.
        public var haltedRollout: String? = nil
    }

    /// A rollback: to which release (nil: the newest good one before live), why, and how.
    public struct RollbackRequest {
        public var target: String?
        /// Why (the journal records it).
        public var reason: String
        public var expectLive: String? = nil
        public var wait = true
        /// Re-hash every file of the target first.
        public var verify = false
        /// Allow a target marked bad (its mark is cleared).
        public var force = false
        /// Mark the release left bad; nil: only when no target is named.
        public var markBad: Bool? = nil
        public var dryRun = false

        public init(to target: String?, reason: String) {
            self.target = target
            self.reason = reason
        }
    }

    /// Swaps back to `target` (or the newest good release before live). The release left is
    /// marked bad by a bare rollback, or when `markBad` says so: a rollback to a named release
    /// (rolling forward again, or back past several) is no verdict on the release it leaves.
    /// `markBad` nil means: only when no target is named.
    ///
    /// The target is checked in constant time by default: its version.json must hash to the seal
    /// the journal recorded when the release was staged, and every file was verified from disk
    /// then (so a rollback costs the same on a root of 10 files or 10,000). `verify` re-hashes
    /// every file first, as `ratecard verify` does; so does a release the journal holds no seal for.
    ///
    /// The bad mark is journaled (a `rollback-intent` entry, fsynced) before the swap, so a crash
    /// between the swap and the final entry cannot lose it. A target marked bad needs `force`;
    /// the target of a rollback is never left marked bad. `dryRun` checks everything and
    /// changes nothing.
    /// `onWarning` hears what went wrong after the flip without undoing it.
    public func rollback(_ request: RollbackRequest, onWarning: (Message) -> Void = { _ in }) throws -> Rollback {
        let marksBad = request.markBad ?? (request.target == nil)
        let change = try LiveChange.begin(root, command: "rollback", wait: request.wait, expectLive: nil, recover: !request.dryRun, pointerOnly: true)
        defer { change.end() }
        guard let live = change.live else { throw ConflictError("\(root.displayName) has no live release to roll back", ko: "\(root.displayName)에는 롤백할 라이브 릴리스가 없습니다") }
        try change.expect(request.expectLive)
        let bad = try root.badReleases()
        let chosen = try request.target.map { try checkTarget($0, live: live, bad: bad, force: request.force) } ?? newestGood(before: live, bad: bad)
        var result = Rollback(from: live, to: chosen, check: try check(chosen, verify: request.verify), targetWasBad: bad.contains(chosen), markedBad: marksBad)
        // A staged rollout in progress is halted first (its release kept good): a rollback
        // means the environment goes back to a known release, for every install.
        if request.dryRun {
            result.haltedRollout = try root.journalLog.state().rollout.flatMap { $0.release == live ? nil : $0.release }
            return result
        }
        result.haltedRollout = try Rollouts.haltForRollback(root: root, live: live, message: request.reason)?.release
        var fields = JournalFields.base(action: "rollback-intent")
        fields["from"] = .string(live)
        fields["to"] = .string(chosen)
        fields["message"] = .string(request.reason)
        fields["marks_bad"] = .bool(marksBad)
        // A rollback to a newer release is a roll forward: the history names it so.
        fields["direction"] = .string(Journal.Entry.rollsForward(from: live, to: chosen) ? "forward" : "back")
        // A target without a seal (published before seals) was just re-hashed whole: its seal is
        // journaled with the rollback, so the next rollback to it checks only its version.json.
        if case .rehashed = result.check, try root.journalLog.state().seals[chosen] == nil { fields[JournalFields.seal] = .string(try root.versionHash(of: chosen)) }
        try root.journalLog.append(fields)
        CrashPoint.hit("intent")
        fields.merge(JournalFields.base(action: "rollback")) { $1 }
        try change.makeLive(chosen, journal: fields, warn: onWarning)
        return result
    }

    /// `target` when a rollback may make it live: it exists, is not live, and is not marked bad
    /// (unless `force`).
    private func checkTarget(_ target: String, live: String, bad: Set<String>, force: Bool) throws -> String {
        guard try root.releaseIDs().contains(target) else { throw ConflictError("release \(target) does not exist in \(root.displayName)", ko: "\(root.displayName)에 릴리스 \(target)이(가) 없습니다") }
        guard target != live else { throw ConflictError("release \(target) is already live", ko: "릴리스 \(target)은(는) 이미 라이브입니다") }
        if bad.contains(target) && !force {
            throw ConflictError(
                "release \(target) is marked bad (a rollback left it); roll back to it anyway with --force, or clear the mark with 'ratecard releases --clear-bad \(target) -m <reason>'",
                ko: "릴리스 \(target)에는 불량 표시가 있습니다 (롤백으로 떠난 릴리스); 그래도 돌아가려면 --force를 주거나, 'ratecard releases --clear-bad \(target) -m <사유>'로 표시를 지우세요")
        }
        return target
    }

    /// The newest release that was live before `live`, is kept, and is not marked bad.
    private func newestGood(before live: String, bad: Set<String>) throws -> String {
        let existing = Set(try root.releaseIDs())
        guard let candidate = try root.activationHistory().first(where: { $0 != live && !bad.contains($0) && existing.contains($0) }) else {
            throw ConflictError("no earlier good release to roll back to; name one with --to (see 'ratecard releases')", ko: "롤백할 이전의 정상 릴리스가 없습니다; --to로 릴리스를 지정하세요 ('ratecard releases' 참고)")
        }
        return candidate
    }

    /// Checks the release about to be made live: its version.json against the seal journaled at
    /// publish, or every file re-hashed (`verify`, or no seal).
    private func check(_ chosen: String, verify: Bool) throws -> Check {
        if !verify, let problems = try root.sealProblems(of: chosen) {
            guard problems.isEmpty else {
                throw RefusedError(
                    "release \(chosen) no longer matches the version.json it was published with (\(problems.joined(separator: ", "))); refusing to make it live",
                    ko: "릴리스 \(chosen)이(가) 게시할 때의 version.json과 더는 맞지 않습니다 (\(problems.joined(separator: ", "))); 라이브로 만들지 않습니다")
            }
            return .sealed
        }
        let drift = try root.drift(of: chosen, deep: true)
        guard drift.isEmpty else {
            throw RefusedError(
                "release \(chosen) no longer matches its version.json (\(drift.prefix(3).joined(separator: ", "))); refusing to make it live",
                ko: "릴리스 \(chosen)이(가) 자기 version.json과 더는 맞지 않습니다 (\(drift.prefix(3).joined(separator: ", "))); 라이브로 만들지 않습니다")
        }
        return .rehashed(files: try root.info(of: chosen).files.count)
    }

    /// Clears the bad mark of `release` (journaled with who, when and why), so a bare rollback
    /// may choose it again.
    public func clearBad(_ release: String, reason: String, wait: Bool) throws {
        try LiveStatements.requireSigner(root)
        let lock = try root.acquireLock(command: "releases --clear-bad", wait: wait, onWait: { _ in })
        defer { lock.release() }
        try root.recover()
        try LiveStatements.repair(root: root)
        guard try root.releaseIDs().contains(release) else { throw ConflictError("release \(release) does not exist in \(root.displayName)", ko: "\(root.displayName)에 릴리스 \(release)이(가) 없습니다") }
        guard try root.badReleases().contains(release) else { throw ConflictError("release \(release) is not marked bad", ko: "릴리스 \(release)에는 불량 표시가 없습니다") }
        var fields = JournalFields.base(action: "clear-bad")
        fields["release"] = .string(release)
        fields["message"] = .string(reason)
        let sequence = try LiveStatements.nextSequence(root: root)
        fields["live_sequence"] = .int(sequence)
        try root.journalLog.append(fields)
        // A release marked bad may be the one a bridge line should name again.
        try BridgeLines.repair(root: root)
        try LiveStatements.write(root: root, sequence: sequence)
    }

    /// A promote: which release (nil: the source's live one), why, and what must still be live in
    /// the target.
    public struct Promotion {
        public var release: String?
        public var message: String
        public var expectLive: String? = nil
        public var wait = true
        /// More journal fields (the approval given, the source environment).
        public var extra: [String: JSON] = [:]

        public init(release: String?, message: String) {
            self.release = release
            self.message = message
        }
    }

    /// Makes a copy of another target's release live here (the same files; the target's next
    /// sequence number, with the source's id recorded as `promoted_from` in its version.json and
    /// as `source_release` in the journal): its objects the target lacks are copied (never
    /// hard-linked: two environments never share an inode), then its manifest, the copy is
    /// re-hashed, then the pointer is flipped. Between a serve root and a bucket either way, or
    /// two buckets or prefixes. Returns the id the release has in the target.
    public static func promote(
        _ request: Promotion, from source: any ReleaseStore, to target: any ReleaseStore, onWarning: (Message) -> Void = { _ in }
    ) throws -> (id: String, previous: String?, alreadyLive: Bool) {
        let (release, message, extra) = (request.release, request.message, request.extra)
        guard let id = try release ?? source.live() else { throw ConflictError("\(source.displayName) has nothing live to promote", ko: "\(source.displayName)에는 승격할 라이브 릴리스가 없습니다") }
        guard let manifest = try source.manifest(of: id) else { throw ConflictError("release \(id) does not exist in \(source.displayName)", ko: "\(source.displayName)에 릴리스 \(id)이(가) 없습니다") }
        if let rollout = try source.journalLog.state().rollout, rollout.release == id, try source.live() != id {
            throw ConflictError(
                "release \(id) is only being rolled out in \(source.displayName) (\(Rollouts.share(rollout.share)) of installs); nothing was changed. Complete the rollout there first ('ratecard rollout --complete')",
                ko: "릴리스 \(id)은(는) \(source.displayName)에서 단계적으로 배포하는 중일 뿐입니다 (설치의 \(Rollouts.share(rollout.share))); 아무것도 바꾸지 않았습니다. 먼저 그곳의 배포를 완료하세요('ratecard rollout --complete')"
            )
        }
        let drift = try source.drift(of: id, deep: true)
        guard drift.isEmpty else {
            throw RefusedError(
                "release \(id) in \(source.displayName) does not match its version.json: \(drift.prefix(3).joined(separator: ", "))",
                ko: "\(source.displayName)의 릴리스 \(id)이(가) 자기 version.json과 맞지 않습니다: \(drift.prefix(3).joined(separator: ", "))")
        }
        let sourceInfo = try ReleaseInfo.parse(manifest, source: "\(source.displayName) release \(id) version.json")
        let change = try LiveChange.begin(target, command: "promote", wait: request.wait, expectLive: request.expectLive, crashPoints: (nil, "promote-recovered"))
        defer { change.end() }
        // Already live: the same release, or a copy of it promoted before.
        if let live = change.live, try live == id || target.info(of: live).promotedFrom == id { return (live, live, true) }
        try Rollouts.requireNone(target, live: change.live)
        // The copy takes the target's next number (its source's id recorded), so no two
        // releases of the target share a number and `rollback --to N` names one.
        var info = sourceInfo
        if !(try target.releaseIDs().contains(id) && target.manifest(of: id) == manifest) {
            info.id = try target.nextReleaseID(bundleID: sourceInfo.bundleID)
            info.promotedFrom = id
            try copy(info, from: source, to: target, change: change)
        }
        let promoted = info.id
        let drifted = try target.drift(of: promoted, deep: true)
        guard drifted.isEmpty else {
            throw OperationalError("the copy of \(id) does not verify: \(drifted.prefix(3).joined(separator: ", "))", ko: "\(id)의 사본이 검증되지 않습니다: \(drifted.prefix(3).joined(separator: ", "))")
        }
        var fields = JournalFields.base(action: "promote")
        fields[JournalFields.seal] = .string(try target.versionHash(of: promoted))
        fields["release"] = .string(promoted)
        fields["source_release"] = .string(id)
        fields["previous"] = change.live.map(JSON.string) ?? .null
        fields["bundle_id"] = .string(info.bundleID)
        fields["commit"] = info.sourceCommit.map { .string($0.hex) } ?? .null
        fields["source_root"] = .string(source.displayName)
        fields["message"] = .string(message)
        fields["bridge_requires"] = .int(info.bridge?["requires"]?.intValue ?? 0)
        for (key, value) in extra { fields[key] = value }
        try change.makeLive(promoted, journal: fields, warn: onWarning)
        return (promoted, change.live, false)
    }

    /// Puts release `id` of `source` into `target`: the objects it names that the target lacks
    /// (copied, never linked), then its version.json.
    private static func copy(_ sourceInfo: ReleaseInfo, from source: any ReleaseStore, to target: any ReleaseStore, change: LiveChange) throws {
        let (id, manifest) = (sourceInfo.id, sourceInfo.bytes())
        guard sourceInfo.format >= ObjectLayout.objectsSince else {
            throw RefusedError(
                "release \(id) predates the object store (each file in its own folder) and cannot be promoted; publish its commit to \(target.displayName) instead",
                ko: "릴리스 \(id)은(는) 오브젝트 저장 방식 이전(파일마다 자기 폴더에 있던 때)의 것이라 승격할 수 없습니다; 대신 그 커밋을 \(target.displayName)에 게시하세요")
        }
        let present = Set(try target.list(.objects).map(\.name))
        var seen: Set<String> = []
        let unique = sourceInfo.files.filter { seen.insert(ObjectLayout.objectName($0)).inserted }
        let copied = try source.objects(unique.map(ObjectLayout.objectName).filter { !present.contains($0) })
        let items = unique.map { file in
            let name = ObjectLayout.objectName(file)
            return StoreItem(key: .object(name), sha256: file.sha256, size: file.size, bytes: copied[name])
        }
        try target.put(items)
        CrashPoint.hit("promote-objects")
        try change.confirm()
        try target.put([StoreItem(key: .release(id), sha256: SHA256.hex(manifest), size: manifest.count, bytes: manifest, info: sourceInfo)])
    }

    /// `ratecard sign`: live.json re-signed for what is live now, with a new sequence and expiry
    /// (journaled as a `sign` entry). Returns the sequence (nil: nothing is live).
    public func sign(wait: Bool) throws -> Int? {
        try LiveStatements.requireSigner(root)
        let lock = try root.acquireLock(command: "sign", wait: wait, onWait: { _ in })
        defer { lock.release() }
        try root.recover()
        try BridgeLines.repair(root: root)
        try lock.confirm()
        return try LiveStatements.write(root: root, journal: JournalFields.base(action: "sign"))
    }

    /// What `repair` put back: the entry files restored, by release.
    public struct Repaired: Equatable, Sendable {
        public var live: String?
        public var restored: [String: [String]]
        /// Entry files that could not be restored (their objects are missing or changed too), by release.
        public var lost: [String: [String]] = [:]
    }

    /// Puts back in one step what should follow the pointer and the releases: under the lock,
    /// what a crash left is recovered (a bucket's `index.html` rewritten for the live release,
    /// the journal caught up), the entry files a release is missing are restored from its
    /// manifest and objects (those whose objects are gone too are returned as `lost`), and the
    /// bridge lines are recomputed.
    public func repair(wait: Bool) throws -> Repaired {
        try LiveStatements.requireSigner(root)
        let lock = try root.acquireLock(command: "repair", wait: wait, onWait: { _ in })
        defer { lock.release() }
        try root.recover()
        var restored: [String: [String]] = [:]
        var lost: [String: [String]] = [:]
        for id in try root.releaseIDs() {
            do {
                let paths = try root.restoreEntries(of: id)
                if !paths.isEmpty { restored[id] = paths }
            } catch let unrestorable as UnrestorableEntries {
                // The rest is still repaired; the caller says what is lost.
                if !unrestorable.restored.isEmpty { restored[id] = unrestorable.restored }
                lost[id] = unrestorable.lost
            }
        }
        try BridgeLines.repair(root: root)
        try LiveStatements.repair(root: root)
        return Repaired(live: try root.pointer(), restored: restored, lost: lost)
    }

    /// What a prune removed (or, for a dry run, would remove).
    public struct Pruned: Equatable, Sendable {
        public var releases: [String]
        public var objects: Int
        public var bytes: Int
    }

    /// Removes old releases, keeping the newest `keep`, the live one, the newest good one before
    /// it, every release an app version loads (bridge-lines.json) and every release that was
    /// live in the last `graceMinutes`; then deletes the objects no remaining release names.
    /// `dryRun` says which would go and removes nothing.
    ///
    /// Crash-safe at every instant: releases go first (each with one rename), then the page sets
    /// no release still on disk links to, and the objects deleted are those that no release
    /// still on disk names, computed after the releases went; a release's manifest that cannot
    /// be read stops the object sweep.
    public func prune(keep: Int, graceMinutes: Int = 0, wait: Bool, dryRun: Bool = false) throws -> Pruned {
        if !dryRun { try LiveStatements.requireSigner(root) }
        let lock = try root.acquireLock(command: "prune", wait: wait, onWait: { _ in })
        defer { lock.release() }
        if !dryRun {
            try root.recover()
            try BridgeLines.repair(root: root)
            try LiveStatements.repair(root: root)
        }
        CrashPoint.hit("prune-locked")
        let ids = try root.releaseIDs()
        let keepers = Set(ids.suffix(max(0, keep))).union(try protected(ids, graceMinutes: graceMinutes))
        let going = ids.filter { !keepers.contains($0) }
        if dryRun {
            let remaining = ids.filter { keepers.contains($0) }
            let (objects, bytes) = try unreferenced(remaining: remaining)
            return Pruned(releases: going, objects: objects.count, bytes: bytes)
        }
        try lock.confirm()
        for id in going {
            try root.delete([.release(id)])
            CrashPoint.hit("prune-release-removed")
        }
        CrashPoint.hit("prune-releases-removed")
        let remaining = try root.releaseIDs()
        let (objects, bytes) = try unreferenced(remaining: remaining)
        try lock.confirm()
        try root.delete(objects.map(StoreKey.object))
        // What a killed publish left in a kept release's entry folder (served, but not the release's).
        for id in remaining {
            let unlisted = try root.drift(of: id, deep: false).compactMap { problem in
                problem.hasPrefix("unlisted: ") ? StoreKey.entry(release: id, path: String(problem.dropFirst("unlisted: ".count))) : nil
            }
            try root.delete(unlisted)
        }
        // And the entry files of releases without a manifest (a prune killed between the two),
        // and the bridge lines, computed from the releases that remain.
        try root.recover()
        try BridgeLines.repair(root: root)
        CrashPoint.hit("prune-objects-removed")
        var fields = JournalFields.base(action: "prune")
        fields["removed"] = .array(going.map(JSON.string))
        fields["keep"] = .int(keep)
        fields["grace_minutes"] = .int(graceMinutes)
        fields["objects_removed"] = .int(objects.count)
        fields["bytes_freed"] = .int(bytes)
        let sequence = try LiveStatements.nextSequence(root: root)
        fields["live_sequence"] = .int(sequence)
        try root.journalLog.append(fields)
        CrashPoint.hit("prune-journaled")
        try LiveStatements.write(root: root, sequence: sequence)
        return Pruned(releases: going, objects: objects.count, bytes: bytes)
    }

    /// The releases a prune keeps whatever `--keep` says: the live one, the newest good one
    /// before it, every release an app version loads (bridge-lines.json), and every release
    /// live in the last `graceMinutes`.
    private func protected(_ ids: [String], graceMinutes: Int) throws -> Set<String> {
        var protected: Set<String> = []
        if let live = try root.live() {
            protected.insert(live)
            let bad = try root.badReleases()
            if let previous = try root.activationHistory().first(where: { $0 != live && !bad.contains($0) && ids.contains($0) }) {
                protected.insert(previous)
            }
        }
        protected.formUnion(try BridgeLines.read(root: root).values)
        // A release being rolled out is loaded by its share of installs.
        if let rollout = try root.journalLog.state().rollout { protected.insert(rollout.release) }
        protected.formUnion(try recentlyLive(minutes: graceMinutes))
        return protected
    }

    /// The objects that none of `remaining` names, and their bytes.
    private func unreferenced(remaining: [String]) throws -> ([String], Int) {
        var referenced: Set<String> = []
        var infos: [String: ReleaseInfo] = [:]
        for id in remaining {
            guard let bytes = try root.manifest(of: id) else {
                throw OperationalError(
                    "release \(id) has no \(ReleaseInfo.fileName); no object was deleted. Restore it, or remove the release by hand",
                    ko: "릴리스 \(id)에 \(ReleaseInfo.fileName)이(가) 없습니다; 오브젝트는 하나도 지우지 않았습니다. 되살리거나, 그 릴리스를 손으로 지우세요")
            }
            let info = try ReleaseInfo.parse(bytes, source: root.location(of: .release(id)))
            referenced.formUnion(info.objectNames)
            infos[id] = info
        }
        // The public file lists of the releases kept (live.json names them by hash).
        referenced.formUnion(LiveStatements.fileListObjects(root: root, infos: infos))
        let unreferenced = try root.list(.objects).filter { !referenced.contains($0.name) }
        return (unreferenced.map(\.name), unreferenced.reduce(0) { $0 + max(0, $1.size) })
    }

    /// Releases that were live at some instant of the last `minutes` minutes.
    func recentlyLive(minutes: Int) throws -> Set<String> {
        guard minutes > 0 else { return [] }
        let start = Timestamp.format(seconds: time(nil) - minutes * 60)
        var result: Set<String> = []
        var liveAtStart: String?
        var activations = try root.journalLog.state().activations.map { (release: $0.release, time: $0.time) }
        // The state keeps the newest activations: when all of them fall in the window, which
        // release was live at its start is in the older history.
        if activations.count >= JournalState.keptActivations, let first = activations.first, first.time >= start {
            activations = try root.journalLog.entries().compactMap { entry in entry.activated.map { (release: $0, time: entry.time) } }
        }
        for activation in activations {
            if activation.time < start { liveAtStart = activation.release } else { result.insert(activation.release) }
        }
        if let liveAtStart { result.insert(liveAtStart) }
        return result
    }
}
