import RatecardKit

/// `ratecard schema`: one JSON Schema per kind of content file, for editors, from the field
/// tables the loader checks files with.
enum SchemaCommand {
    static let command = Command(
        name: "schema",
        abstract: "Write a JSON Schema (draft 2020-12) for each kind of content file, for editors.",
        usage: "--out <dir> [--check]",
        options: [
            OptionSpec("--out", value: "DIR", "The folder to write <kind>.schema.json into"),
            OptionSpec("--check", "Write nothing; exit 1 when a schema in DIR is missing or out of date"),
        ],
        run: run)

    /// Each schema's file name and bytes, sorted keys, ending in a newline.
    static func files() -> [(name: String, bytes: [UInt8])] {
        FieldTables.kinds.map { ("\($0.name).schema.json", FieldTables.schema($0).bytes(terminator: "\n")) }
    }

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard let out = arguments.value("--out") else {
            throw UsageError("schema needs --out DIR", ko: "schema에는 --out DIR이 필요합니다")
        }
        if arguments.has("--check") {
            var stale: [String] = []
            for file in files() {
                let path = "\(out)/\(file.name)"
                if !FileSystem.exists(path) || (try? FileSystem.readFile(path)) != file.bytes { stale.append(path) }
            }
            for path in stale {
                invocation.console.err(
                    invocation.messages(Message("\(path): out of date; run 'ratecard schema --out \(out)'\n", ko: "\(path): 최신이 아닙니다; 'ratecard schema --out \(out)'을 실행하세요\n")))
            }
            return stale.isEmpty ? RatecardCLI.ExitCode.ok : RatecardCLI.ExitCode.invalid
        }
        try FileSystem.makeDirectories(out)
        for file in files() { try DurableFiles.replace("\(out)/\(file.name)", file.bytes) }
        invocation.console.out(invocation.messages(Message("\(files().count) schemas written to \(out)\n", ko: "스키마 \(files().count)개를 \(out)에 썼습니다\n")))
        return RatecardCLI.ExitCode.ok
    }
}
