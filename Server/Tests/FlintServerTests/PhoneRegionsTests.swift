@testable import FlintServer
import Testing

@Suite struct PhoneRegionsTests {
    @Test func singleRegionCodes() {
        #expect(PhoneRegions.regions(ofE164: "+33612345678") == ["FR"])
        #expect(PhoneRegions.regions(ofE164: "+919876543210") == ["IN"])
        #expect(PhoneRegions.regions(ofE164: "+4930123456") == ["DE"])
        #expect(PhoneRegions.regions(ofE164: "+5511987654321") == ["BR"])
        #expect(PhoneRegions.regions(ofE164: "+97150123456") == ["AE"])
        #expect(PhoneRegions.regions(ofE164: "+38344123456") == ["XK"])
    }

    @Test func sharedCodesAndTheirLongerPrefixes() {
        #expect(PhoneRegions.regions(ofE164: "+16505551234") == ["US", "CA"])
        #expect(PhoneRegions.regions(ofE164: "+12425551234") == ["BS"])
        #expect(PhoneRegions.regions(ofE164: "+17875551234") == ["PR"])
        #expect(PhoneRegions.regions(ofE164: "+18095551234") == ["DO"])
        #expect(PhoneRegions.regions(ofE164: "+442071234567") == ["GB"])
        #expect(PhoneRegions.regions(ofE164: "+441481123456") == ["GG"])
        #expect(PhoneRegions.regions(ofE164: "+441534123456") == ["JE"])
        #expect(PhoneRegions.regions(ofE164: "+447700900123") == ["GB", "GG", "IM", "JE"], "mobiles do not tell")
        #expect(PhoneRegions.regions(ofE164: "+79161234567") == ["RU"])
        #expect(PhoneRegions.regions(ofE164: "+77011234567") == ["KZ"])
        #expect(PhoneRegions.regions(ofE164: "+35818123456") == ["AX"])
        #expect(PhoneRegions.regions(ofE164: "+358401234567") == ["FI"])
        #expect(PhoneRegions.regions(ofE164: "+590690123456") == ["GP", "BL", "MF"])
    }

    @Test func unknownPrefixesAndNonE164AreEmpty() {
        #expect(PhoneRegions.regions(ofE164: "+80012345678").isEmpty, "international freephone has no region")
        #expect(PhoneRegions.regions(ofE164: "+2591234567").isEmpty, "an unassigned code")
        #expect(PhoneRegions.regions(ofE164: "+").isEmpty)
        #expect(PhoneRegions.regions(ofE164: "33612345678").isEmpty, "no plus sign")
        #expect(PhoneRegions.regions(ofE164: "+33 6 12 34 56 78").isEmpty, "not normalised")
        #expect(PhoneRegions.regions(ofE164: "").isEmpty)
    }

    @Test func regionCodes() {
        #expect(PhoneRegions.isRegion("US") && PhoneRegions.isRegion("GB") && PhoneRegions.isRegion("XK"))
        #expect(!PhoneRegions.isRegion("us"), "upper case only")
        #expect(!PhoneRegions.isRegion("UK") && !PhoneRegions.isRegion("EU") && !PhoneRegions.isRegion("USA"))
        #expect(PhoneRegions.allRegions.count == 250, "the 249 ISO 3166-1 codes and XK")
    }

    @Test func everyInhabitedRegionHasACallingCodeAndEveryCodeNamesRegions() {
        let covered = PhoneRegions.regionsWithCallingCodes
        #expect(covered.isSubset(of: PhoneRegions.allRegions), "\(covered.subtracting(PhoneRegions.allRegions))")
        // Bouvet, Heard and McDonald, the French Southern Territories and the US Minor Outlying Islands
        // have no calling code of their own.
        #expect(PhoneRegions.allRegions.subtracting(covered) == ["BV", "HM", "TF", "UM"])
    }
}
