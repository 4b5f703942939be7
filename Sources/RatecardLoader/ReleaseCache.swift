// The loader's folder on the device: every file it checked, kept by its sha256, and which
// release is the last good one, which one waits for the bridge's `ready`, which were marked bad
// here. The highest accepted sequence is not in it (see AcceptedSequenceStore).
//
//     <folder>/objects/<sha256>    bytes that hashed to their name when they were stored
//     <folder>/releases.json       {"good": …, "candidate": …, "bad": {"<release>": "why"}}
//     <folder>/install-id          this install's random id, for staged rollouts (made once)

import Foundation

/// A release the loader checked in full, as it keeps it.
public struct LoadedRelease: Codable, Equatable, Sendable {
    public var environment: String
    public var release: String
    /// The sha256 of its file list (the line's `files`).
    public var files: String
    /// The sequence of the statement it was loaded under.
    public var sequence: Int
    public var signedAt: String
    public var expiresAt: String?
    /// The trusted keys whose signatures verified; empty when the app trusts none (hashes only).
    public var signedBy: [String]
    public var fileList: ReleaseFileList
    /// The staged rollout it was loaded through (its id), nil for the line's own release.
    public var rollout: String? = nil

    enum CodingKeys: String, CodingKey {
        case environment, release, files, sequence, rollout
        case signedAt = "signed_at"
        case expiresAt = "expires_at"
        case signedBy = "signed_by"
        case fileList = "file_list"
    }

    /// The entry of the file served at `path` (`index.html`, `app/main.js`), or of the object
    /// `o/<name>` that pages name by hash; nil when the release has no such file.
    public func file(at path: String) -> ReleaseFileList.File? {
        var trimmed = Substring(path)
        while trimmed.hasPrefix("/") { trimmed = trimmed.dropFirst() }
        if trimmed.isEmpty { trimmed = "index.html" }
        if trimmed.hasPrefix("o/") {
            let name = trimmed.dropFirst(2)
            return fileList.files.first { $0.object == name }
        }
        return fileList.files.first { $0.path == trimmed }
    }
}

public struct ReleaseCache: Sendable {
    struct Records: Codable {
        var good: LoadedRelease?
        var candidate: LoadedRelease?
        var bad: [String: String] = [:]
    }

    public let folder: String

    public init(folder: String) { self.folder = folder }

    private var recordsPath: String { folder + "/releases.json" }

    func records() throws -> Records {
        guard FileManager.default.fileExists(atPath: recordsPath) else { return Records() }
        return try JSONDecoder().decode(Records.self, from: Data(contentsOf: URL(fileURLWithPath: recordsPath)))
    }

    func save(_ records: Records) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(records).write(to: URL(fileURLWithPath: recordsPath), options: .atomic)
    }

    /// This install's id for staged rollouts: random, made on first use and kept in the folder
    /// (a new install, or a cleared folder, is a new id). No personal data goes into it.
    public func installID() throws -> String {
        let path = folder + "/install-id"
        if let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) {
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !id.isEmpty { return id }
        }
        let id = UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data((id + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return id
    }

    /// The last good release: loaded and (where the app waits for it) reported ready.
    public func good() throws -> LoadedRelease? { try records().good }

    /// Why `release` was marked bad on this device, nil when it was not.
    public func badReason(_ release: String) throws -> String? { try records().bad[release] }

    /// The bytes kept for `sha256`, nil when there are none or they no longer hash to it.
    func object(_ sha256: String, digest: any ContentDigest) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: folder + "/objects/" + sha256) else { return nil }
        let bytes = [UInt8](data)
        return digest.sha256Hex(bytes) == sha256 ? bytes : nil
    }

    /// Removes every kept file that neither the last good release nor the one waiting for ready
    /// names (their files and their file lists), so the folder holds at most two releases.
    func prune(keeping records: Records) throws {
        var kept: Set<String> = []
        for release in [records.good, records.candidate].compactMap({ $0 }) {
            kept.insert(release.files)
            for file in release.fileList.files { kept.insert(file.sha256) }
        }
        let folder = self.folder + "/objects"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where !kept.contains(name) {
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    func store(_ bytes: [UInt8], sha256: String) throws {
        try FileManager.default.createDirectory(atPath: folder + "/objects", withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/objects/" + sha256), options: .atomic)
    }
}
