/// A request body that may name the project it acts on (`targetProjectId`), which only authenticated
/// (admin) callers may do.
public protocol TargetProjectScopedRequest {
    var targetProjectId: String? { get }
}

extension SignUpRequest: TargetProjectScopedRequest {}
extension LookupRequest: TargetProjectScopedRequest {}
extension UpdateAccountRequest: TargetProjectScopedRequest {}
extension DeleteAccountRequest: TargetProjectScopedRequest {}
extension SendOobCodeRequest: TargetProjectScopedRequest {}
extension BatchCreateRequest: TargetProjectScopedRequest {}
extension DownloadAccountRequest: TargetProjectScopedRequest {}
