import Foundation
import RatecardKit
import Testing

@Suite struct GitSourceTests {
    let context = ValidationContext(asOf: fixtureDay)

    @Test func validatesHEADInABareCloneWithoutAWorkTree() throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory + "/work")
            let bare = try Repository.clone(from: directory + "/work", to: directory + "/bare.git", bare: true)
            #expect(bare.workdir == nil)
            let location = try ContentLocation.find(from: directory + "/bare.git")
            #expect(location.contentDir == nil)
            let report = try ValidationRun(location: location, context: context).validate(revision: "HEAD")
            #expect(report.diagnostics == [])
            #expect(report.commits.count == 1)
            #expect(report.files > 10)
        }
    }

    @Test func revisionReadsTheCommitNotTheWorkTree() throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory)
            try write("id: broken: [", to: directory + "/partners/acme-bank.yaml")
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: context)
            #expect(try run.validate(revision: "HEAD").diagnostics == [])
            #expect(try run.validateWorkingTree().hasErrors)
        }
    }

    @Test func aMissingRevisionIsAnOperationalError() throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory)
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: context)
            #expect(throws: OperationalError("revision 'no-such-branch' cannot be read: revspec 'no-such-branch' not found")) { try run.validate(revision: "no-such-branch") }
        }
    }

    @Test func aCommittedSymlinkIsReportedNotFollowed() throws {
        try withTemporaryDirectory { directory in
            let repository = try Fixtures.makeBaseRepository(at: directory)
            #expect(symlinkAt(directory + "/partners/extra.yaml", to: "/etc/passwd"))
            try repository.commitAll(message: "Add a symlink", author: Fixtures.testAuthor)
            let report = try ValidationRun(location: try ContentLocation.find(from: directory), context: context).validate(revision: "HEAD")
            let found = report.diagnostics.map { "\($0.rule) \($0.path):\($0.mark)" }
            #expect(found == ["GIT-01 partners/extra.yaml:1:1"])
        }
    }

    /// 50 commits, each changing one rate table: the range re-parses only the changed blobs.
    @Test func rangeParsesOnlyChangedBlobs() throws {
        try withTemporaryDirectory { directory in
            let repository = try Fixtures.makeBaseRepository(at: directory)
            let base = try #require(try repository.headCommit())
            let table = directory + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let original = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            var badCommit: ObjectID?
            for step in 1...50 {
                // Move the best band's limit a little each commit; commit 30 breaks the cap.
                var text = original.replacingOccurrences(of: "limit_max_krw: 100000000", with: "limit_max_krw: \(100_000_000 - step * 10_000)")
                if step == 30 { text = text.replacingOccurrences(of: "apr_max_pct: 5.6", with: "apr_max_pct: 20.5") }
                try write(text, to: table)
                let commit = try repository.commitAll(message: "Rate change \(step)", author: Fixtures.testAuthor)
                if step == 30 { badCommit = commit }
            }
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: context)
            let report = try run.validate(range: "\(base.hex)..HEAD")
            let files = try #require(try repository.treeEntries(commit: base, under: "")).count
            #expect(report.commits.count == 50)
            #expect(report.filesParsed == files + 50)
            let capProblems = report.diagnostics.filter { $0.rule == "CAP-01" }
            #expect(capProblems.count == 1)
            #expect(capProblems.first?.commit?.id == badCommit)
            #expect(capProblems.first?.commit?.summary == "Rate change 30")
        }
    }
}

import Glibc

func symlinkAt(_ path: String, to target: String) -> Bool {
    Glibc.symlink(target, path) == 0
}
