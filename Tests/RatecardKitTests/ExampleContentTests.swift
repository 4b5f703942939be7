import RatecardKit
import Testing

/// Where `ratecard init` finds the example content: from the executable's place, never from
/// the source tree it was built in.
@Suite struct ExampleContentTests {
    @Test func anInstalledRatecardFindsItInShare() throws {
        try withTemporaryDirectory { directory in
            try FileSystem.makeDirectories(directory + "/usr/share/ratecard/content")
            try FileSystem.writeFile(directory + "/usr/share/ratecard/content/ratecard.yaml", Array("service_name: x\n".utf8))
            #expect(try ExampleContent.folder(environment: [:], executable: directory + "/usr/bin/ratecard") == directory + "/usr/share/ratecard/content")
        }
    }

    @Test func aRatecardInACheckoutFindsTheCheckoutsContent() throws {
        try withTemporaryDirectory { directory in
            try FileSystem.makeDirectories(directory + "/checkout/content")
            try FileSystem.writeFile(directory + "/checkout/content/ratecard.yaml", Array("service_name: x\n".utf8))
            let binary = directory + "/checkout/.build/x86_64-unknown-linux-gnu/release/ratecard"
            #expect(try ExampleContent.folder(environment: [:], executable: binary) == directory + "/checkout/content")
            #expect(try ExampleContent.folder(environment: ["RATECARD_EXAMPLE": "/elsewhere"], executable: binary) == "/elsewhere")
        }
    }

    @Test func aRatecardFarFromAnyContentSaysToSetTheVariable() throws {
        try withTemporaryDirectory { directory in
            let binary = directory + "/bin/ratecard"
            expectThrows(
                OperationalError.self, "the example content is neither installed beside \(binary) (share/ratecard/content) nor in a checkout holding it; set RATECARD_EXAMPLE to a folder holding it"
            ) {
                try ExampleContent.folder(environment: [:], executable: binary)
            }
        }
    }

    @Test func theseTestsFindThisCheckoutsContentFromTheirOwnExecutable() throws {
        let folder = try ExampleContent.folder(environment: [:])
        #expect(FileSystem.exists(folder + "/ratecard.yaml"))
        #expect(FileSystem.exists(try ExampleContent.webBuild(besides: folder) + "/index.html"))
    }
}
