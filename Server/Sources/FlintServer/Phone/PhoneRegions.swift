/// Which regions (ISO 3166-1 alpha-2) a phone number may belong to, from the ITU country calling codes.
///
/// Some codes are shared: the North American Numbering Plan (+1), +7 (Russia, Kazakhstan), +44 (the
/// United Kingdom and the Crown Dependencies), +590, +262, +599 and a few more. Where an area code
/// tells the members apart (the NANP's Caribbean and Pacific members, Kazakhstan's +7 6/7, Guernsey's
/// +44 1481 …) a longer prefix names the one region; otherwise every member is listed.
public enum PhoneRegions {
    /// The regions of an E.164 number (`+` and digits) by its longest known prefix; empty for an unknown
    /// prefix or anything that is not E.164.
    public static func regions(ofE164 number: String) -> [String] {
        guard number.first == "+" else { return [] }
        let digits = number.utf8.dropFirst()
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return [] }
        let text = String(decoding: digits, as: UTF8.self)
        for length in stride(from: min(text.count, longestPrefix), through: 1, by: -1) {
            if let regions = byPrefix[String(text.prefix(length))] { return regions }
        }
        return []
    }

    /// Whether `code` is an ISO 3166-1 alpha-2 region (upper case), or XK (Kosovo, as phone libraries use it).
    public static func isRegion(_ code: String) -> Bool {
        allRegions.contains(code)
    }

    /// Every region a calling code leads to.
    static var regionsWithCallingCodes: Set<String> { Set(byPrefix.values.joined()) }

    /// The officially assigned ISO 3166-1 alpha-2 codes, and XK.
    static let allRegions: Set<String> = Set("""
        AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY
        BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK
        FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR
        IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK
        ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM
        PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF
        TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW XK
        """.split(whereSeparator: \.isWhitespace).map(String.init))

    /// Prefix (digits after `+`) → regions, parsed once from `table`.
    private static let byPrefix: [String: [String]] = {
        var result: [String: [String]] = [:]
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard let prefix = fields.first, fields.count > 1 else { continue }
            result[prefix] = Array(fields.dropFirst())
        }
        return result
    }()

    private static let longestPrefix = byPrefix.keys.map(\.count).max() ?? 0

    /// One prefix a line, then its regions. Zones 1–9 of ITU-T E.164; international services
    /// (+800, +808, +870, +878, +881–883, +888, +979) belong to no region and are left out.
    private static let table = """
        1 US CA
        1242 BS
        1246 BB
        1264 AI
        1268 AG
        1284 VG
        1340 VI
        1345 KY
        1441 BM
        1473 GD
        1649 TC
        1658 JM
        1664 MS
        1670 MP
        1671 GU
        1684 AS
        1721 SX
        1758 LC
        1767 DM
        1784 VC
        1787 PR
        1809 DO
        1829 DO
        1849 DO
        1868 TT
        1869 KN
        1876 JM
        1939 PR
        20 EG
        211 SS
        212 MA EH
        213 DZ
        216 TN
        218 LY
        220 GM
        221 SN
        222 MR
        223 ML
        224 GN
        225 CI
        226 BF
        227 NE
        228 TG
        229 BJ
        230 MU
        231 LR
        232 SL
        233 GH
        234 NG
        235 TD
        236 CF
        237 CM
        238 CV
        239 ST
        240 GQ
        241 GA
        242 CG
        243 CD
        244 AO
        245 GW
        246 IO
        247 SH
        248 SC
        249 SD
        250 RW
        251 ET
        252 SO
        253 DJ
        254 KE
        255 TZ
        256 UG
        257 BI
        258 MZ
        260 ZM
        261 MG
        262 RE YT
        262269 YT
        262639 YT
        263 ZW
        264 NA
        265 MW
        266 LS
        267 BW
        268 SZ
        269 KM
        27 ZA
        290 SH
        291 ER
        297 AW
        298 FO
        299 GL
        30 GR
        31 NL
        32 BE
        33 FR
        34 ES
        350 GI
        351 PT
        352 LU
        353 IE
        354 IS
        355 AL
        356 MT
        357 CY
        358 FI
        35818 AX
        359 BG
        36 HU
        370 LT
        371 LV
        372 EE
        373 MD
        374 AM
        375 BY
        376 AD
        377 MC
        378 SM
        379 VA
        380 UA
        381 RS
        382 ME
        383 XK
        385 HR
        386 SI
        387 BA
        389 MK
        39 IT
        3906698 VA
        40 RO
        41 CH
        420 CZ
        421 SK
        423 LI
        43 AT
        44 GB GG IM JE
        440 GB
        441 GB
        441481 GG
        441534 JE
        441624 IM
        442 GB
        443 GB
        445 GB
        448 GB
        449 GB
        45 DK
        46 SE
        47 NO
        4779 SJ
        48 PL
        49 DE
        500 FK GS
        501 BZ
        502 GT
        503 SV
        504 HN
        505 NI
        506 CR
        507 PA
        508 PM
        509 HT
        51 PE
        52 MX
        53 CU
        54 AR
        55 BR
        56 CL
        57 CO
        58 VE
        590 GP BL MF
        591 BO
        592 GY
        593 EC
        594 GF
        595 PY
        596 MQ
        597 SR
        598 UY
        599 CW BQ
        5993 BQ
        5994 BQ
        5997 BQ
        5999 CW
        60 MY
        61 AU
        6189162 CC
        6189164 CX
        62 ID
        63 PH
        64 NZ PN
        65 SG
        66 TH
        670 TL
        672 NF AQ
        6721 AQ
        6723 NF
        673 BN
        674 NR
        675 PG
        676 TO
        677 SB
        678 VU
        679 FJ
        680 PW
        681 WF
        682 CK
        683 NU
        685 WS
        686 KI
        687 NC
        688 TV
        689 PF
        690 TK
        691 FM
        692 MH
        7 RU KZ
        73 RU
        74 RU
        76 KZ
        77 KZ
        78 RU
        79 RU
        81 JP
        82 KR
        84 VN
        850 KP
        852 HK
        853 MO
        855 KH
        856 LA
        86 CN
        880 BD
        886 TW
        90 TR
        91 IN
        92 PK
        93 AF
        94 LK
        95 MM
        960 MV
        961 LB
        962 JO
        963 SY
        964 IQ
        965 KW
        966 SA
        967 YE
        968 OM
        970 PS
        971 AE
        972 IL
        973 BH
        974 QA
        975 BT
        976 MN
        977 NP
        98 IR
        992 TJ
        993 TM
        994 AZ
        995 GE
        996 KG
        998 UZ
        """
}
