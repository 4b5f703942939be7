import Foundation
import RatecardGenerate
import RatecardKit
import Testing

/// `site/app/loan-math.js` (the figures the comparison screen shows) against an independent
/// computation: a month-by-month amortisation, with the equal installment found by bisection
/// rather than by the annuity formula the app uses.
@Suite struct LoanMathTests {
    struct Case: Codable {
        var amount: Int
        var apr: Double
        var months: Int
        var method: String
    }

    struct Figures: Codable, Equatable {
        var firstPayment: Int
        var lastPayment: Int
        var totalInterest: Int
        var total: Int
    }

    /// The app's figures for `cases`, from one node process.
    func appFigures(_ cases: [Case]) throws -> [Figures?] {
        try withTemporaryDirectory { directory in
            try FileSystem.writeFile(directory + "/cases.json", Array(try JSONEncoder().encode(cases)))
            // The app's module as it is, named .mjs so that node reads it as an ES module.
            try FileSystem.writeFile(directory + "/loan-math.mjs", try FileSystem.readFile(projectSite + "/app/loan-math.js"))
            try FileSystem.writeFile(
                directory + "/run.mjs",
                Array(
                    """
                    import { readFileSync } from "node:fs";
                    import { repayment } from "./loan-math.mjs";
                    const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
                    console.log(JSON.stringify(cases.map((c) => repayment(c.amount, c.apr, c.months, c.method))));

                    """.utf8))
            let (status, output) = try runTool("/usr/bin/env", ["node", directory + "/run.mjs", directory + "/cases.json"])
            #expect(status == 0, "\(output)")
            return try JSONDecoder().decode([Figures?].self, from: Data(output.utf8))
        }
    }

    /// Month by month: interest on the balance at APR/12, the payment the method asks for.
    static func amortised(_ loan: Case) -> Figures {
        let r = loan.apr / 100 / 12
        let principal = Double(loan.amount)
        func balanceAfterPaying(_ payment: Double) -> Double {
            var balance = principal
            for _ in 0..<loan.months { balance = balance * (1 + r) - payment }
            return balance
        }
        var payments: [Double] = []
        switch loan.method {
        case "equal_installment":
            var low = 0.0
            var high = principal * (1 + r) + 1
            for _ in 0..<200 {
                let middle = (low + high) / 2
                if balanceAfterPaying(middle) > 0 { low = middle } else { high = middle }
            }
            payments = Array(repeating: (low + high) / 2, count: loan.months)
        case "equal_principal":
            var balance = principal
            for _ in 0..<loan.months {
                let part = principal / Double(loan.months)
                payments.append(part + balance * r)
                balance -= part
            }
        default:  // bullet
            for month in 1...loan.months { payments.append(principal * r + (month == loan.months ? principal : 0)) }
        }
        let total = Int(payments.reduce(0, +).rounded())
        return Figures(firstPayment: Int(payments[0].rounded()), lastPayment: Int(payments[payments.count - 1].rounded()), totalInterest: total - loan.amount, total: total)
    }

    @Test func theStatedExampleOfTheLaw() throws {
        // "100만원을 연 20%로 12개월 동안 원리금균등상환 시 총 납부금액 1,111,614원"
        let figures = try appFigures([Case(amount: 1_000_000, apr: 20, months: 12, method: "equal_installment")])
        #expect(figures == [Figures(firstPayment: 92_635, lastPayment: 92_635, totalInterest: 111_614, total: 1_111_614)])
    }

    @Test func everyMethodAgreesWithAMonthByMonthAmortisation() throws {
        var random = SplitMix64(seed: 20_261_201)
        var cases: [Case] = []
        for method in ["equal_installment", "equal_principal", "bullet"] {
            for _ in 0..<150 {
                let amount = random.int(1...3000) * 100_000
                let apr = Double(random.int(1...19_900)) / 1000
                cases.append(Case(amount: amount, apr: apr, months: random.pick([1, 3, 6, 12, 24, 36, 48, 60, 120, 360]), method: method))
            }
        }
        let app = try appFigures(cases)
        #expect(app.count == cases.count)
        for (loan, figures) in zip(cases, app) {
            let expected = Self.amortised(loan)
            guard let figures else {
                Issue.record("no figures for \(loan)")
                continue
            }
            // Both round once, from the same exact figure; only the last bit of a double differs.
            #expect(abs(figures.total - expected.total) <= 1, "\(loan): \(figures) vs \(expected)")
            #expect(abs(figures.firstPayment - expected.firstPayment) <= 1, "\(loan): \(figures) vs \(expected)")
            #expect(abs(figures.lastPayment - expected.lastPayment) <= 1, "\(loan): \(figures) vs \(expected)")
            #expect(figures.totalInterest == figures.total - loan.amount)
        }
    }

    @Test func inputsNoLoanHasGiveNoFigures() throws {
        let figures = try appFigures([
            Case(amount: 0, apr: 5, months: 12, method: "bullet"),
            Case(amount: 1_000_000, apr: 5, months: 0, method: "equal_installment"),
            Case(amount: 1_000_000, apr: 5, months: 12, method: "interest_only_forever"),
        ])
        #expect(figures == [nil, nil, nil])
    }
}
