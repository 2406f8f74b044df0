import Foundation

extension Gazetteer {
    /// The country's name in `language` (an ISO 639 code) from Foundation's CLDR data, else the English
    /// ISO 3166 name the gazetteer carries.
    func countryName(countryIndex: Int?, code: String?, language: String?) -> String? {
        if let code, let language, language != "en",
           let localized = Locale(identifier: language).localizedString(forRegionCode: code), localized != code {
            return localized
        }
        if let countryIndex { return text.optional(countries[countryIndex].name) }
        guard let code else { return nil }
        return Locale(identifier: "en").localizedString(forRegionCode: code)
    }

    /// The place's name, or an alternate name written in the script of `language` when the place has one.
    ///
    /// GeoNames' alternate names in this data carry no language tag, so the choice is by script: a name
    /// written in Russian's letters for Russian, Han for Chinese, Han or kana for Japanese, and so on —
    /// but only when the place has exactly one such name ("Токио" for Tokyo in Russian). With several
    /// (Moscow has "Москва", "Масква", "Маскав"… in Cyrillic; Tokyo has "东京" and "東京" in Han),
    /// nothing says which one is the language's, so the GeoNames name is kept rather than guessed.
    /// Latin-script languages keep the GeoNames name (usually the local form: "München", "Genève").
    func placeName(_ index: Int, language: String?) -> String {
        let name = text[Int(places.name[index])]
        guard let language, let script = Script(language: language), !script.contains(name) else { return name }
        var found: String?
        for slot in Int(places.alternateStart[index])..<Int(places.alternateStart[index + 1]) {
            let alternate = strings[Int(places.alternates[slot])]
            guard script.contains(alternate) else { continue }
            if found != nil { return name }
            found = alternate
        }
        return found ?? name
    }
}

/// A writing system, recognised by the Unicode blocks of a string's letters.
struct Script {
    private let accepts: (Unicode.Scalar) -> Bool

    init?(language: String) {
        switch language {
        case "ru":
            accepts = { (0x0410...0x044F).contains($0.value) || $0.value == 0x0401 || $0.value == 0x0451 }
        case "uk", "be", "bg", "sr", "mk", "kk", "ky", "mn", "tg":
            accepts = { (0x0400...0x052F).contains($0.value) }
        case "zh":
            accepts = { (0x4E00...0x9FFF).contains($0.value) || (0x3400...0x4DBF).contains($0.value) }
        case "ja":
            accepts = {
                (0x4E00...0x9FFF).contains($0.value) || (0x3040...0x30FF).contains($0.value)
            }
        case "ko": accepts = { (0xAC00...0xD7AF).contains($0.value) || (0x1100...0x11FF).contains($0.value) }
        case "ar", "fa", "ur", "ps": accepts = { (0x0600...0x06FF).contains($0.value) }
        case "he", "yi": accepts = { (0x0590...0x05FF).contains($0.value) }
        case "el": accepts = { (0x0370...0x03FF).contains($0.value) || (0x1F00...0x1FFF).contains($0.value) }
        case "th": accepts = { (0x0E00...0x0E7F).contains($0.value) }
        case "hi", "mr", "ne": accepts = { (0x0900...0x097F).contains($0.value) }
        case "ka": accepts = { (0x10A0...0x10FF).contains($0.value) }
        case "hy": accepts = { (0x0530...0x058F).contains($0.value) }
        default: return nil
        }
    }

    /// Whether every letter of `text` is in this script (spaces, digits and punctuation are ignored).
    func contains(_ text: String) -> Bool {
        var sawLetter = false
        for scalar in text.unicodeScalars where scalar.properties.isAlphabetic {
            guard accepts(scalar) else { return false }
            sawLetter = true
        }
        return sawLetter
    }
}
