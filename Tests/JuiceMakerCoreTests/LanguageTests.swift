import JuiceTestSupport
import Testing
import JuiceMakerCore

@Suite("Language from the locale environment", .tags(.unit))
struct LanguageTests {
    @Test(
        "the language code is matched exactly",
        arguments: [
            ("ko_KR.UTF-8", Language.korean), ("ko", .korean), ("KO_kr", .korean), ("ko.UTF-8", .korean),
            ("ko@euro", .korean), ("kok_IN.UTF-8", .english), ("kor", .english), ("en_US.UTF-8", .english),
            ("C", .english), ("POSIX", .english), ("", .english),
        ])
    func exactCode(lang: String, expected: Language) {
        #expect(Language(environment: ["LANG": lang]) == expected)
    }

    @Test("POSIX order: LC_ALL, then LC_MESSAGES, then LANG; empty values are skipped")
    func posixOrder() {
        #expect(Language(environment: ["LC_MESSAGES": "ko_KR.UTF-8", "LANG": "en_US.UTF-8"]) == .korean)
        #expect(Language(environment: ["LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "ko_KR.UTF-8"]) == .english)
        #expect(Language(environment: ["LC_ALL": "", "LC_MESSAGES": "", "LANG": "ko_KR.UTF-8"]) == .korean)
        #expect(Language(environment: ["LC_MESSAGES": "en_GB", "LANG": "ko_KR"]) == .english)
        #expect(Language(environment: [:]) == .english)
    }
}
