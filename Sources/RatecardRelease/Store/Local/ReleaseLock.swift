internal import CShims
import Glibc
import RatecardCore
import RatecardSupport

/// The one lock for everything that changes a serve root: `flock` on `.ratecard/lock`.
///
/// The kernel releases a `flock` when its holder dies, so a dead holder is never waited on.
/// The file says who holds it (for people); it is never deleted. Opened `O_CLOEXEC` so no
/// child process keeps it alive.
public final class ReleaseLock: ReleaseLease {
    private var fd: Int32
    public let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { release() }

    /// A `flock` is held until released: the kernel never takes it away from a live holder.
    public func confirm() throws {}

    public func release() {
        guard fd >= 0 else { return }
        _ = cshims_flock_unlock(fd)
        close(fd)
        fd = -1
    }

    /// Takes the lock, waiting for the holder unless `wait` is false (then a held lock is a `ConflictError`).
    public static func acquire(root: String, command: String, wait: Bool, onWait: (Message) -> Void = { _ in }) throws -> ReleaseLock {
        let folder = root + "/.ratecard"
        try FileSystem.makeDirectories(root)
        let path = folder + "/lock"
        let fd = try StateFiles.open(folder, "lock", flags: O_RDWR | O_CREAT)
        if cshims_flock_exclusive(fd, 1) != 0 {
            let code = errno
            guard code == EWOULDBLOCK else {
                close(fd)
                throw FileSystem.failure("flock", path, code: code)
            }
            let holder = describeHolder(path)
            guard wait else {
                close(fd)
                throw ConflictError(
                    "\(root) is locked by \(holder); try again when it finishes (or wait without --no-wait)", ko: "\(root)은(는) \(holder)이(가) 잠가 두었습니다; 끝나면 다시 시도하세요 (또는 --no-wait 없이 기다리세요)")
            }
            onWait(Message("waiting for the lock on \(root), held by \(holder)", ko: "\(root)의 잠금을 기다립니다 (잠근 쪽: \(holder))"))
            while cshims_flock_exclusive(fd, 0) != 0 {
                guard errno == EINTR else {
                    let failure = FileSystem.failure("flock", path)
                    close(fd)
                    throw failure
                }
            }
        }
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count)
        let hostName = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let holder = "pid \(getpid()) (\(ProcessUser.name)@\(hostName), 'ratecard \(command)', since \(Timestamp.now()))\n"
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, holder, holder.utf8.count, 0)
        return ReleaseLock(fd: fd, path: path)
    }

    static func describeHolder(_ path: String) -> Message {
        let text = (try? StateFiles.read(DurableFiles.parent(of: path), DurableFiles.name(of: path))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let trimmed = text.trimmingCharacters(in: "\n ")
        return trimmed.isEmpty ? Message("another ratecard process", ko: "다른 ratecard 프로세스") : .verbatim(trimmed)
    }
}

/// Who is running ratecard, as journals and locks record it.
public enum ProcessUser {
    /// The operating-system user, and under `sudo` the person who ran it:
    /// `alice (via sudo as root)` (from `SUDO_USER`), so a journal names who did it.
    public static var name: String { actor(effective: effective, sudoUser: ProcessEnvironment.current["SUDO_USER"]) }

    /// The effective operating-system user.
    public static var effective: String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return ProcessEnvironment.current["USER"] ?? "uid \(geteuid())"
    }

    /// `effective`, or the user `sudo` ran it for when that is someone else.
    public static func actor(effective: String, sudoUser: String?) -> String {
        guard let sudoUser, !sudoUser.isEmpty, sudoUser != effective else { return effective }
        return "\(sudoUser) (via sudo as \(effective))"
    }
}

/// Wall-clock time for journals and release ids (never used in bundles).
public enum Timestamp {
    /// `2026-11-29T06:30:00Z`.
    public static func now() -> String { format(seconds: time(nil)) }

    /// A journal or release time (`2026-11-29T06:30:00Z`) as people in the content's timezone
    /// read it: `2026-11-29 15:30:00 +09:00` (Asia/Seoul has no daylight saving time).
    public static func seoul(_ utc: String) -> String {
        guard utc.count == 20, utc.hasSuffix("Z"), let day = Day(String(utc.prefix(10))) else { return utc }
        let clock = utc.dropFirst(11).prefix(8).split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return utc }
        let seconds = day.ordinal * 86400 + clock[0] * 3600 + clock[1] * 60 + clock[2] + 9 * 3600
        let local = format(seconds: seconds)
        return String(local.prefix(10)) + " " + String(local.dropFirst(11).prefix(8)) + " +09:00"
    }

    /// The time of day in Asia/Seoul at `seconds` since the epoch: `15:30:00`.
    public static func seoulClock(seconds: Int) -> String {
        String(seoul(format(seconds: seconds)).dropFirst(11).prefix(8))
    }

    public static func format(seconds: Int) -> String {
        let day = Day(ordinal: seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400)
        let rest = ((seconds % 86400) + 86400) % 86400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(day)T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }
}
