/// A request body that names the tenant it is for (`tenantId`). Clients fill it in one place: FlintAuth's
/// backend sets its configured tenant on every such body it sends.
public protocol TenantScopedRequest: Encodable {
    var tenantId: String? { get set }
}

extension SignUpRequest: TenantScopedRequest {}
extension SignInWithPasswordRequest: TenantScopedRequest {}
extension LookupRequest: TenantScopedRequest {}
extension UpdateAccountRequest: TenantScopedRequest {}
extension DeleteAccountRequest: TenantScopedRequest {}
extension CreateAuthURIRequest: TenantScopedRequest {}
extension SignInWithCustomTokenRequest: TenantScopedRequest {}
extension BatchCreateRequest: TenantScopedRequest {}
extension BatchDeleteRequest: TenantScopedRequest {}
extension QueryAccountsRequest: TenantScopedRequest {}
extension CreateSessionCookieRequest: TenantScopedRequest {}
extension SendOobCodeRequest: TenantScopedRequest {}
extension SignInWithEmailLinkRequest: TenantScopedRequest {}
extension ResetPasswordRequest: TenantScopedRequest {}
extension SignInWithIdpRequest: TenantScopedRequest {}
extension RevokeTokenRequest: TenantScopedRequest {}
extension StartMFAEnrollmentRequest: TenantScopedRequest {}
extension FinalizeMFAEnrollmentRequest: TenantScopedRequest {}
extension WithdrawMFARequest: TenantScopedRequest {}
extension StartMFASignInRequest: TenantScopedRequest {}
extension FinalizeMFASignInRequest: TenantScopedRequest {}
extension SendVerificationCodeRequest: TenantScopedRequest {}
extension SignInWithPhoneNumberRequest: TenantScopedRequest {}
extension StartPasskeyEnrollmentRequest: TenantScopedRequest {}
extension FinalizePasskeyEnrollmentRequest: TenantScopedRequest {}
extension StartPasskeySignInRequest: TenantScopedRequest {}
extension FinalizePasskeySignInRequest: TenantScopedRequest {}

/// A request body that may carry the caller's ID token (`idToken`): its `firebase.tenant` names the tenant the call is
/// for when the body names none.
public protocol IDTokenCarryingRequest {
    var idToken: String? { get }
}

extension SignUpRequest: IDTokenCarryingRequest {}
extension LookupRequest: IDTokenCarryingRequest {}
extension UpdateAccountRequest: IDTokenCarryingRequest {}
extension DeleteAccountRequest: IDTokenCarryingRequest {}
extension CreateSessionCookieRequest: IDTokenCarryingRequest {}
extension SendOobCodeRequest: IDTokenCarryingRequest {}
extension SignInWithEmailLinkRequest: IDTokenCarryingRequest {}
extension SignInWithIdpRequest: IDTokenCarryingRequest {}
extension StartMFAEnrollmentRequest: IDTokenCarryingRequest {}
extension FinalizeMFAEnrollmentRequest: IDTokenCarryingRequest {}
extension WithdrawMFARequest: IDTokenCarryingRequest {}
extension SignInWithPhoneNumberRequest: IDTokenCarryingRequest {}
extension StartPasskeyEnrollmentRequest: IDTokenCarryingRequest {}
extension FinalizePasskeyEnrollmentRequest: IDTokenCarryingRequest {}
