import RatecardCore
import RatecardSupport

/// What the journal says about releases, folded entry by entry: bad marks, seals, what each
/// release's publish recorded, the recent activations and the highest release number ever
/// named. Every command but `log` reads this instead of the entries, so a target that keeps a
/// checkpoint of it (object storage: `S3Journal`) answers in a number of requests that does not
/// grow with its history. Entries are folded in order; folding the same entries from any
/// checkpoint gives the same state.
public struct JournalState: Sendable, Equatable {
    /// One activation (publish, promote, recover or rollback), as the journal recorded it.
    public struct Activation: Sendable, Equatable {
        public var release: String
        public var action: Journal.Action
        public var time: String
        public var user: String?
        public var message: String?
        /// A rollback's release left.
        public var from: String?
        /// Whether a rollback marked the release it left bad (nil for other actions).
        public var marksBad: Bool? = nil

        /// Whether a rollback made a newer release live than the one it left (a roll forward).
        public var rollsForward: Bool { action == .rollback && Journal.Entry.rollsForward(from: from, to: release) }
    }

    /// A bad mark cleared (`releases --clear-bad`): who, when and why.
    public struct Clearance: Sendable, Equatable {
        public var release: String
        public var time: String
        public var user: String?
        public var message: String?
        /// How many activations the journal had recorded before it (`activationsRecorded`):
        /// where it goes among them.
        public var after: Int
    }

    /// A rollback journaled before its swap: what its entry says.
    struct Intent: Sendable, Equatable {
        var from: String
        var to: String
        var marksBad: Bool
        var user: String?
        var message: String?
    }

    /// What a release's last publish or promote recorded.
    public struct Publication: Sendable, Equatable {
        public var action: Journal.Action
        public var time: String
        public var user: String?
        public var author: String?
        public var message: String?
        public var commit: ObjectID?
        public var approval: Journal.Approval?
        /// The bridge version the release's web build needs (0: none), as journaled; nil for a
        /// release journaled before the field was written.
        public var bridgeRequires: Int? = nil
    }

    /// The public file list a release had when an entry made it live (`file_list`): its sha256
    /// and size, for the environment and list format named, made from the version.json whose
    /// sha256 is `version`. A statement names it without making the list again while all three
    /// still hold (`LiveStatements.FileLists`).
    public struct FileListRecord: Sendable, Equatable {
        public var sha256: String
        public var size: Int
        public var environment: String
        public var format: Int
        public var version: String

        public init(sha256: String, size: Int, environment: String, format: Int, version: String) {
            self.sha256 = sha256
            self.size = size
            self.environment = environment
            self.format = format
            self.version = version
        }

        /// Nil for anything but a whole record.
        public init?(json: JSON?) {
            guard let json, let sha256 = json["sha256"]?.stringValue, let size = json["size"]?.intValue, let environment = json["environment"]?.stringValue,
                let format = json["format"]?.intValue, let version = json["version_sha256"]?.stringValue
            else { return nil }
            self.init(sha256: sha256, size: size, environment: environment, format: format, version: version)
        }

        public var json: JSON {
            .object([
                "sha256": .string(sha256), "size": .int(size), "environment": .string(environment), "format": .int(format), "version_sha256": .string(version),
            ])
        }
    }

    /// A staged rollout in progress (`publish --rollout`), or one event of its history.
    public struct Rollout: Sendable, Equatable {
        public var release: String
        /// Names it in the statement (`<release>@<sequence of its start>`): installs are picked by it.
        public var id: String
        /// The share of installs, in basis points (1...9999).
        public var share: Int
        /// The journal action of the event (`rollout-start` for the rollout in progress: when it began).
        public var action: Journal.Action
        public var time: String
        public var user: String?
        public var message: String?
        /// A halt's bad mark (nil for other events).
        public var marksBad: Bool? = nil
    }

    /// The staged rollout in progress, as the journal says; nil when none is.
    public var rollout: Rollout?
    /// Rollout events, oldest first (at most `keptActivations`).
    public var rolloutHistory: [Rollout] = []

    /// Entries folded so far (line numbers for a file, entry numbers for object storage).
    public var through = 0
    var bad: Set<String> = []
    /// A rollback journaled before its swap and not yet known to have happened.
    var pending: Intent?
    /// The sha256 of each release's version.json as published or promoted (the seal).
    public var seals: [String: String] = [:]
    public var publications: [String: Publication] = [:]
    /// The file list each release had when it was last made live, as journaled.
    public var fileLists: [String: FileListRecord] = [:]
    /// The newest activations, oldest first (at most `keptActivations`).
    public var activations: [Activation] = []
    /// The highest release sequence number the journal ever named.
    public var highestRelease = 0
    /// The highest live.json sequence the journal recorded (`live_sequence`): the next statement's
    /// is above it.
    public var highestLiveSequence = 0
    /// What could not be read as an entry and was not a torn append (a decision must not be
    /// made without it: it may have been a bad mark).
    public var damage: [Journal.Problem] = []
    /// Torn appends (reported, harmless).
    public var torn: [Journal.Problem] = []
    /// Approvals that covered scheduled changes, oldest first, with the release each was given
    /// with: `publish --if-stale` finds its change's approval here on the day it takes effect.
    public var scheduledApprovals: [(release: String?, approval: Journal.Approval)] = []
    /// Bad marks cleared, oldest first (those of releases since pruned are dropped).
    public var clearances: [Clearance] = []
    /// How many activations the journal ever recorded (`activations` keeps the newest).
    public var activationsRecorded = 0

    /// Activations kept: enough for every rollback and prune decision (the newest good release
    /// before live) and for `status` and `releases`; older ones are in the journal itself.
    static let keptActivations = 256

    public init() {}

    public static func == (lhs: JournalState, rhs: JournalState) -> Bool {
        lhs.through == rhs.through && lhs.bad == rhs.bad && lhs.pending == rhs.pending
            && lhs.seals == rhs.seals && lhs.publications == rhs.publications && lhs.fileLists == rhs.fileLists && lhs.activations == rhs.activations
            && lhs.highestRelease == rhs.highestRelease && lhs.damage == rhs.damage && lhs.torn == rhs.torn && lhs.clearances == rhs.clearances
            && lhs.activationsRecorded == rhs.activationsRecorded && lhs.highestLiveSequence == rhs.highestLiveSequence
            && lhs.rollout == rhs.rollout && lhs.rolloutHistory == rhs.rolloutHistory
            && lhs.scheduledApprovals.map(\.release) == rhs.scheduledApprovals.map(\.release)
            && lhs.scheduledApprovals.map(\.approval) == rhs.scheduledApprovals.map(\.approval)
    }

    /// Folds one entry in.
    public mutating func apply(_ entry: Journal.Entry) {
        for name in [entry.release, entry.from, entry.to, entry.previous].compactMap({ $0 }) {
            highestRelease = max(highestRelease, Int(name.prefix { $0.isNumber }) ?? 0)
        }
        if let sequence = entry.fields["live_sequence"]?.intValue { highestLiveSequence = max(highestLiveSequence, sequence) }
        // A recover entry records a swap whose own entry was lost: a rollback's, when it made its
        // intent's target live; that activation is shown as the rollback it was.
        var activation = entry.activated.map {
            Activation(
                release: $0, action: entry.action, time: entry.time, user: entry.user, message: entry.message, from: entry.from,
                marksBad: entry.action == .rollback ? entry.marksBad : nil)
        }
        switch entry.action {
        case .rollback:
            // The seal of a target re-hashed whole because it had none; a seal journaled before is kept.
            if let to = entry.to, let seal = entry.seal, seals[to] == nil { seals[to] = seal }
            if let from = entry.from, entry.marksBad { bad.insert(from) }
            if let to = entry.to { bad.remove(to) }
            pending = nil
        case .rollbackIntent:
            if let from = entry.from, let to = entry.to {
                pending = Intent(from: from, to: to, marksBad: entry.marksBad, user: entry.user, message: entry.message)
            }
        case .recover:
            // The seal of a flip whose own entry was lost; a seal journaled before is kept.
            if let release = entry.release, let seal = entry.seal, seals[release] == nil { seals[release] = seal }
            if let intent = pending, entry.release == intent.to {
                if intent.marksBad { bad.insert(intent.from) }
                bad.remove(intent.to)
                activation = Activation(
                    release: intent.to, action: .rollback, time: entry.time, user: intent.user, message: intent.message, from: intent.from, marksBad: intent.marksBad)
            }
            pending = nil
        case .clearBad:
            if let release = entry.release {
                bad.remove(release)
                clearances.append(Clearance(release: release, time: entry.time, user: entry.user, message: entry.message, after: activationsRecorded))
            }
        case .publish, .promote:
            pending = nil
            if let release = entry.release {
                if let seal = entry.seal { seals[release] = seal }
                publications[release] = Publication(
                    action: entry.action, time: entry.time, user: entry.user, author: entry.fields["author"]?.stringValue, message: entry.message, commit: entry.commit,
                    approval: entry.approval, bridgeRequires: entry.fields["bridge_requires"]?.intValue)
            }
        case .prune:
            // Releases removed are gone for good: what the state keeps of them goes too.
            for case .string(let removed) in entry.fields["removed"]?.arrayValue ?? [] {
                seals[removed] = nil
                publications[removed] = nil
                fileLists[removed] = nil
                bad.remove(removed)
                clearances.removeAll { $0.release == removed }
            }
        case .failure, .sign:
            break
        case .rolloutStart, .rolloutPercent, .rolloutComplete, .rolloutHalt:
            applyRollout(entry)
        }
        // A flip whose own entry was lost: when it made the rollout's release live, it completed it.
        if entry.action == .recover, let rollout, entry.release == rollout.release { self.rollout = nil }
        if let approval = entry.approval, approval.scheduled?.isEmpty == false {
            scheduledApprovals.append((entry.release, approval))
        }
        if let release = entry.activated, let record = FileListRecord(json: entry.fields["file_list"]) { fileLists[release] = record }
        if let activation {
            activationsRecorded += 1
            activations.append(activation)
            if activations.count > Self.keptActivations { activations.removeFirst(activations.count - Self.keptActivations) }
        }
    }

    /// Folds one rollout entry in: the rollout in progress and its history.
    mutating func applyRollout(_ entry: Journal.Entry) {
        guard let release = entry.release else { return }
        let id = entry.fields["rollout_id"]?.stringValue ?? release
        let share = entry.fields["share_bp"]?.intValue ?? rollout?.share ?? 0
        var event = Rollout(release: release, id: id, share: share, action: entry.action, time: entry.time, user: entry.user, message: entry.message)
        switch entry.action {
        case .rolloutStart:
            if let seal = entry.seal { seals[release] = seal }
            publications[release] = Publication(
                action: entry.action, time: entry.time, user: entry.user, author: entry.fields["author"]?.stringValue, message: entry.message,
                commit: entry.commit, approval: entry.approval, bridgeRequires: entry.fields["bridge_requires"]?.intValue)
            rollout = event
        case .rolloutPercent:
            if rollout?.id == id { rollout?.share = share }
        case .rolloutComplete:
            rollout = nil
            bad.remove(release)
        default:
            event.marksBad = entry.marksBad
            if entry.marksBad { bad.insert(release) }
            if rollout?.id == id { rollout = nil }
        }
        rolloutHistory.append(event)
        if rolloutHistory.count > Self.keptActivations { rolloutHistory.removeFirst(rolloutHistory.count - Self.keptActivations) }
    }

    /// The rollout events of `release`, oldest first.
    public func rolloutHistory(of release: String) -> [Rollout] { rolloutHistory.filter { $0.release == release } }

    /// Folds the entries and problems of a read journal, numbered from `through + 1` on.
    public mutating func apply(_ contents: Journal.Contents, through last: Int) {
        for entry in contents.entries { apply(entry) }
        for problem in contents.problems {
            if problem.torn { torn.append(problem) } else { damage.append(problem) }
        }
        through = max(through, last)
    }

    /// The rollback that marked `release` bad last (or its intent, when its swap happened and
    /// its entry was lost), when the kept activations still hold it.
    public func badMarkingRollback(of release: String) -> Activation? {
        if let marked = activations.last(where: { $0.from == release && $0.marksBad == true }) { return marked }
        guard let intent = pending, intent.from == release, intent.marksBad else { return nil }
        return Activation(release: intent.to, action: .rollback, time: "", user: intent.user, message: intent.message, from: intent.from, marksBad: true)
    }

    /// Releases marked bad: every release a bare rollback (or `--mark-bad`) left, less those
    /// cleared since and the target of any later rollback. A rollback's intent counts once its swap is known to have
    /// happened: its `rollback` entry, the `recover` entry of the next run, or `live` being its
    /// target now.
    public func badReleases(live: String?) -> Set<String> {
        guard let intent = pending, live == intent.to else { return bad }
        var marked = bad
        if intent.marksBad { marked.insert(intent.from) }
        marked.remove(intent.to)
        return marked
    }

    /// Throws at the first damaged entry: an edited or unreadable one may have been a bad mark,
    /// and a rollback, a prune or the bridge lines must not be decided without it.
    public func requireUndamaged() throws {
        guard let damaged = damage.first else { return }
        throw OperationalError(
            damaged.text.then(
                Message(
                    "it may have been a bad mark, so nothing was changed. Mend the line (or delete it, once you know what it was) and run the command again",
                    ko: "불량 표시였을 수도 있으므로 아무것도 바꾸지 않았습니다. 그 줄을 고치거나(무엇이었는지 확인한 뒤라면 지우거나) 명령을 다시 실행하세요")))
    }

    /// One warning per problem, for the commands that only show history.
    public var warnings: [Message] { (damage + torn).sorted { $0.number < $1.number }.map(\.text) }

    /// Releases that were live, newest first, without repeats.
    public var activationHistory: [String] {
        var seen: Set<String> = []
        return activations.reversed().map(\.release).filter { seen.insert($0).inserted }
    }

    /// The release the journal last recorded as made live.
    public var lastActivated: String? { activations.last?.release }

    /// The activations of `release`, oldest first.
    public func activations(of release: String) -> [Activation] { activations.filter { $0.release == release } }

    /// The bad marks of `release` cleared, oldest first.
    public func clearances(of release: String) -> [Clearance] { clearances.filter { $0.release == release } }
}

// MARK: - The checkpoint as JSON

extension JournalState {
    /// The state as a JSON object (object storage keeps it as a checkpoint of its journal).
    public var json: JSON {
        func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }
        func problem(_ p: Journal.Problem) -> JSON {
            .object(["location": .string(p.location), "number": .int(p.number), "reason": .string(p.reason), "torn": .bool(p.torn)])
        }
        return .object([
            "format": .int(1),
            "through": .int(through),
            "bad": .array(bad.sorted().map(JSON.string)),
            "pending": pending.map {
                .object(["from": .string($0.from), "to": .string($0.to), "marks_bad": .bool($0.marksBad), "user": optional($0.user), "message": optional($0.message)])
            } ?? .null,
            "seals": .object(seals.mapValues(JSON.string)),
            "file_lists": .object(fileLists.mapValues(\.json)),
            "publications": .object(
                publications.mapValues { p in
                    .object([
                        "action": .string(p.action.rawValue), "time": .string(p.time), "user": optional(p.user), "author": optional(p.author),
                        "message": optional(p.message), "commit": optional(p.commit?.hex), "bridge_requires": p.bridgeRequires.map(JSON.int) ?? .null,
                        "approval": p.approval.map(Self.json) ?? .null,
                    ])
                }),
            "scheduled_approvals": .array(scheduledApprovals.map { .object(["release": optional($0.release), "approval": Self.json($0.approval)]) }),
            "activations": .array(
                activations.map { a in
                    .object([
                        "release": .string(a.release), "action": .string(a.action.rawValue), "time": .string(a.time), "user": optional(a.user),
                        "message": optional(a.message), "from": optional(a.from), "marks_bad": a.marksBad.map(JSON.bool) ?? .null,
                    ])
                }),
            "cleared": .array(
                clearances.map { c in
                    .object([
                        "release": .string(c.release), "time": .string(c.time), "user": optional(c.user), "message": optional(c.message), "after": .int(c.after),
                    ])
                }),
            "activations_recorded": .int(activationsRecorded),
            "highest_release": .int(highestRelease),
            "highest_live_sequence": .int(highestLiveSequence),
            "rollout": rollout.map(Self.json) ?? .null,
            "rollout_history": .array(rolloutHistory.map(Self.json)),
            "damage": .array(damage.map(problem)),
            "torn": .array(torn.map(problem)),
        ])
    }

    /// A state from `json`; nil for anything that is not one (the journal is then read whole).
    public init?(json: JSON) {
        guard json["format"]?.intValue == 1, let through = json["through"]?.intValue, let highest = json["highest_release"]?.intValue else { return nil }
        self.init()
        self.through = through
        highestRelease = highest
        highestLiveSequence = json["highest_live_sequence"]?.intValue ?? 0
        func strings(_ value: JSON?) -> [String]? {
            guard let items = value?.arrayValue else { return nil }
            let texts = items.compactMap(\.stringValue)
            return texts.count == items.count ? texts : nil
        }
        guard let bad = strings(json["bad"]) else { return nil }
        self.bad = Set(bad)
        if let from = json["pending"]?["from"]?.stringValue, let to = json["pending"]?["to"]?.stringValue {
            // A checkpoint written before rollbacks could leave a release unmarked: every one marked it.
            pending = Intent(
                from: from, to: to, marksBad: json["pending"]?["marks_bad"]?.boolValue ?? true, user: json["pending"]?["user"]?.stringValue,
                message: json["pending"]?["message"]?.stringValue)
        }
        guard case .object(let seals)? = json["seals"], case .object(let publications)? = json["publications"],
            let activations = json["activations"]?.arrayValue
        else { return nil }
        for (release, seal) in seals {
            guard let seal = seal.stringValue else { return nil }
            self.seals[release] = seal
        }
        // A checkpoint written before file lists were journaled has none: each is made again.
        if case .object(let lists)? = json["file_lists"] {
            for (release, value) in lists {
                guard let record = FileListRecord(json: value) else { return nil }
                fileLists[release] = record
            }
        }
        for (release, value) in publications {
            guard let action = value["action"]?.stringValue.flatMap(Journal.Action.init(rawValue:)), let time = value["time"]?.stringValue else { return nil }
            let approval = value["approval"].flatMap(Self.approval)
            self.publications[release] = Publication(
                action: action, time: time, user: value["user"]?.stringValue, author: value["author"]?.stringValue, message: value["message"]?.stringValue,
                commit: value["commit"]?.stringValue.flatMap(ObjectID.init(validating:)), approval: approval, bridgeRequires: value["bridge_requires"]?.intValue)
        }
        for value in activations {
            guard let release = value["release"]?.stringValue, let action = value["action"]?.stringValue.flatMap(Journal.Action.init(rawValue:)),
                let time = value["time"]?.stringValue
            else { return nil }
            self.activations.append(
                Activation(
                    release: release, action: action, time: time, user: value["user"]?.stringValue, message: value["message"]?.stringValue, from: value["from"]?.stringValue,
                    marksBad: value["marks_bad"]?.boolValue ?? (action == .rollback ? true : nil)))
        }
        func problems(_ value: JSON?) -> [Journal.Problem]? {
            guard let items = value?.arrayValue else { return nil }
            var found: [Journal.Problem] = []
            for item in items {
                guard let location = item["location"]?.stringValue, let number = item["number"]?.intValue, let reason = item["reason"]?.stringValue,
                    case .bool(let torn)? = item["torn"]
                else { return nil }
                found.append(Journal.Problem(location: location, number: number, reason: reason, torn: torn))
            }
            return found
        }
        // A checkpoint written before cleared marks were kept is not one: the journal is read whole.
        guard let damage = problems(json["damage"]), let torn = problems(json["torn"]), let approvals = json["scheduled_approvals"]?.arrayValue,
            let cleared = json["cleared"]?.arrayValue, let recorded = json["activations_recorded"]?.intValue
        else { return nil }
        activationsRecorded = recorded
        for item in cleared {
            guard let release = item["release"]?.stringValue, let time = item["time"]?.stringValue, let after = item["after"]?.intValue else { return nil }
            clearances.append(Clearance(release: release, time: time, user: item["user"]?.stringValue, message: item["message"]?.stringValue, after: after))
        }
        self.damage = damage
        self.torn = torn
        // A checkpoint written before rollouts existed had none in progress.
        if let value = json["rollout"], value != .null {
            guard let rollout = Self.rollout(value) else { return nil }
            self.rollout = rollout
        }
        for item in json["rollout_history"]?.arrayValue ?? [] {
            guard let event = Self.rollout(item) else { return nil }
            rolloutHistory.append(event)
        }
        for item in approvals {
            guard let approval = item["approval"].flatMap(Self.approval) else { return nil }
            scheduledApprovals.append((item["release"]?.stringValue, approval))
        }
    }

    static func json(_ rollout: Rollout) -> JSON {
        .object([
            "release": .string(rollout.release), "id": .string(rollout.id), "share_bp": .int(rollout.share), "action": .string(rollout.action.rawValue),
            "time": .string(rollout.time), "user": rollout.user.map(JSON.string) ?? .null, "message": rollout.message.map(JSON.string) ?? .null,
            "marks_bad": rollout.marksBad.map(JSON.bool) ?? .null,
        ])
    }

    static func rollout(_ json: JSON) -> Rollout? {
        guard let release = json["release"]?.stringValue, let id = json["id"]?.stringValue, let share = json["share_bp"]?.intValue,
            let action = json["action"]?.stringValue.flatMap(Journal.Action.init(rawValue:)), let time = json["time"]?.stringValue
        else { return nil }
        return Rollout(
            release: release, id: id, share: share, action: action, time: time, user: json["user"]?.stringValue, message: json["message"]?.stringValue,
            marksBad: json["marks_bad"]?.boolValue)
    }

    static func json(_ approval: Journal.Approval) -> JSON {
        var fields: [String: JSON] = ["reason": .string(approval.reason), "by": approval.by.map(JSON.string) ?? .null]
        if let risks = approval.risks { fields["risks"] = .array(risks.map(JSON.string)) }
        if let scheduled = approval.scheduled {
            fields["scheduled"] = .array(scheduled.map { .object(["from": .string($0.from), "change": .string($0.change)]) })
        }
        if let approvedIn = approval.approvedIn { fields["approved_in"] = .array(approvedIn.map(JSON.string)) }
        return .object(fields)
    }

    static func approval(_ json: JSON) -> Journal.Approval? {
        guard let reason = json["reason"]?.stringValue else { return nil }
        let risks = json["risks"]?.arrayValue?.compactMap(\.stringValue)
        let scheduled = json["scheduled"]?.arrayValue?.compactMap { item -> Journal.Approval.Scheduled? in
            guard let from = item["from"]?.stringValue, let change = item["change"]?.stringValue else { return nil }
            return Journal.Approval.Scheduled(from: from, change: change)
        }
        return Journal.Approval(
            reason: reason, by: json["by"]?.stringValue, risks: risks, scheduled: scheduled, approvedIn: json["approved_in"]?.arrayValue?.compactMap(\.stringValue))
    }
}
