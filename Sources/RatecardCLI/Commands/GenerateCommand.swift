import RatecardGenerate
import RatecardKit

/// `ratecard generate DIR`: a large, valid, committed content repository for benchmarks.
enum GenerateCommand {
    static let command = Command(
        name: "generate",
        abstract: "Generate a large valid content repository (seeded, reproducible) with a history of rate changes.",
        usage: "<dir> [--partners <n>] [--products <n>] [--tables <n>] [--terms <n>] [--history <n>] [--seed <n>]",
        options: [
            OptionSpec("--partners", value: "N", "Partner lenders (default 300)"),
            OptionSpec("--products", value: "N", "Products, spread over the partners (default 3000)"),
            OptionSpec("--tables", value: "N", "Dated rate tables, spread over the products (default 6000)"),
            OptionSpec("--terms", value: "N", "Terms versions, five per document, about 8 KB of Korean Markdown each (default 2000)"),
            OptionSpec("--history", value: "N", "Further commits after the first, each moving one rate table (default 200)"),
            OptionSpec("--seed", value: "N", "Random seed; the same seed gives the same files and commit ids (default 1)"),
        ],
        positionals: 1...1,
        discussion: """
            DIR must not exist yet, or be empty. The content validates with no errors and no warnings for any
            --as-of date from 2026-01-01 on; 'make bench' measures ratecard against it.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        var parameters = LargeContentGenerator.Parameters()
        parameters.partners = try count(arguments, "--partners", parameters.partners, minimum: 1)
        parameters.products = try count(arguments, "--products", parameters.products)
        parameters.rateTables = try count(arguments, "--tables", parameters.rateTables)
        parameters.termsVersions = try count(arguments, "--terms", parameters.termsVersions)
        parameters.history = try count(arguments, "--history", parameters.history)
        parameters.seed = UInt64(try count(arguments, "--seed", Int(parameters.seed)))
        if parameters.history > 0 && (parameters.rateTables == 0 || parameters.products == 0) {
            throw UsageError(
                "'--history' needs rate tables to change; pass --products and --tables of 1 or more", ko: "'--history'에는 바꿀 금리표가 필요합니다; --products와 --tables를 1 이상으로 주세요")
        }
        let target = RatecardCLI.resolve(arguments.positionals[0], against: invocation.directory)
        let summary = try LargeContentGenerator(parameters).generate(into: target)
        let head = summary.commits.last.map(\.short) ?? "none"
        let (files, bytes, markdown, commits, folder) = (summary.files, summary.bytes, summary.markdownBytes, summary.commits.count, arguments.positionals[0])
        invocation.out(
            Message(
                "Generated \(files) files (\(bytes) bytes, \(markdown) of terms Markdown) in \(folder): \(commits) commits, HEAD \(head).\n",
                ko: "\(folder)에 파일 \(files)개를 생성했습니다 (\(bytes)바이트, 그중 약관 Markdown \(markdown)바이트): 커밋 \(commits)개, HEAD \(head).\n"))
        return RatecardCLI.ExitCode.ok
    }

    private static func count(_ arguments: ParsedArguments, _ name: String, _ fallback: Int, minimum: Int = 0) throws(UsageError) -> Int {
        guard let text = arguments.value(name) else { return fallback }
        guard let value = Int(text), value >= minimum else {
            throw UsageError("'\(name)' must be a whole number of at least \(minimum), not '\(text)'", ko: "'\(name)'에는 \(minimum) 이상의 정수를 써야 합니다 (지금 값: '\(text)')")
        }
        return value
    }
}
