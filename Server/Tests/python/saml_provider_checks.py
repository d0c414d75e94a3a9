"""firebase-admin-python's integration cases for SAML provider configs (integration/test_auth.py and, for a tenant's
`auth_for_tenant` client, integration/test_tenant_mgt.py): the same arguments and asserts, with its two IdP
certificates. Used by admin_sdk_check.py and tenants_check.py.
"""
import random
import string

from firebase_admin import auth

X509_CERTIFICATES = [
    ('-----BEGIN CERTIFICATE-----\nMIICZjCCAc+gAwIBAgIBADANBgkqhkiG9w0BAQ0FADBQMQswCQYDVQQGEwJ1czE'
     'L\nMAkGA1UECAwCQ0ExDTALBgNVBAoMBEFjbWUxETAPBgNVBAMMCGFjbWUuY29tMRIw\nEAYDVQQHDAlTdW5ueXZhbGU'
     'wHhcNMTgxMjA2MDc1MTUxWhcNMjgxMjAzMDc1MTUx\nWjBQMQswCQYDVQQGEwJ1czELMAkGA1UECAwCQ0ExDTALBgNVB'
     'AoMBEFjbWUxETAP\nBgNVBAMMCGFjbWUuY29tMRIwEAYDVQQHDAlTdW5ueXZhbGUwgZ8wDQYJKoZIhvcN\nAQEBBQADg'
     'Y0AMIGJAoGBAKphmggjiVgqMLXyzvI7cKphscIIQ+wcv7Dld6MD4aKv\n7Jqr8ltujMxBUeY4LFEKw8Terb01snYpDot'
     'filaG6NxpF/GfVVmMalzwWp0mT8+H\nyzyPj89mRcozu17RwuooR6n1ofXjGcBE86lqC21UhA3WVgjPOLqB42rlE9gPn'
     'ZLB\nAgMBAAGjUDBOMB0GA1UdDgQWBBS0iM7WnbCNOnieOP1HIA+Oz/ML+zAfBgNVHSME\nGDAWgBS0iM7WnbCNOnieO'
     'P1HIA+Oz/ML+zAMBgNVHRMEBTADAQH/MA0GCSqGSIb3\nDQEBDQUAA4GBAF3jBgS+wP+K/jTupEQur6iaqS4UvXd//d4'
     'vo1MV06oTLQMTz+rP\nOSMDNwxzfaOn6vgYLKP/Dcy9dSTnSzgxLAxfKvDQZA0vE3udsw0Bd245MmX4+GOp\nlbrN99X'
     'P1u+lFxCSdMUzvQ/jW4ysw/Nq4JdJ0gPAyPvL6Qi/3mQdIQwx\n-----END CERTIFICATE-----\n'),
    ('-----BEGIN CERTIFICATE-----\nMIICZjCCAc+gAwIBAgIBADANBgkqhkiG9w0BAQ0FADBQMQswCQYDVQQGEwJ1czE'
     'L\nMAkGA1UECAwCQ0ExDTALBgNVBAoMBEFjbWUxETAPBgNVBAMMCGFjbWUuY29tMRIw\nEAYDVQQHDAlTdW5ueXZhbGU'
     'wHhcNMTgxMjA2MDc1ODE4WhcNMjgxMjAzMDc1ODE4\nWjBQMQswCQYDVQQGEwJ1czELMAkGA1UECAwCQ0ExDTALBgNVB'
     'AoMBEFjbWUxETAP\nBgNVBAMMCGFjbWUuY29tMRIwEAYDVQQHDAlTdW5ueXZhbGUwgZ8wDQYJKoZIhvcN\nAQEBBQADg'
     'Y0AMIGJAoGBAKuzYKfDZGA6DJgQru3wNUqv+S0hMZfP/jbp8ou/8UKu\nrNeX7cfCgt3yxoGCJYKmF6t5mvo76JY0MWw'
     'A53BxeP/oyXmJ93uHG5mFRAsVAUKs\ncVVb0Xi6ujxZGVdDWFV696L0BNOoHTfXmac6IBoZQzNNK4n1AATqwo+z7a0pf'
     'RrJ\nAgMBAAGjUDBOMB0GA1UdDgQWBBSKmi/ZKMuLN0ES7/jPa7q7jAjPiDAfBgNVHSME\nGDAWgBSKmi/ZKMuLN0ES7'
     '/jPa7q7jAjPiDAMBgNVHRMEBTADAQH/MA0GCSqGSIb3\nDQEBDQUAA4GBAAg2a2kSn05NiUOuWOHwPUjW3wQRsGxPXtb'
     'hWMhmNdCfKKteM2+/\nLd/jz5F3qkOgGQ3UDgr3SHEoWhnLaJMF4a2tm6vL2rEIfPEK81KhTTRxSsAgMVbU\nJXBz1md'
     '6Ur0HlgQC7d1CHC8/xi2DDwHopLyxhogaZUxy9IaRxUEa2vJW\n-----END CERTIFICATE-----\n'),
]


def create_saml_provider_config(client):
    """`_create_saml_provider_config`: `client` is the `auth` module (the project) or a tenant's client."""
    return client.create_saml_provider_config(
        provider_id=f"saml.{_random_string()}",
        idp_entity_id="IDP_ENTITY_ID",
        sso_url="https://example.com/login",
        x509_certificates=[X509_CERTIFICATES[0]],
        rp_entity_id="RP_ENTITY_ID",
        callback_url="https://projectId.firebaseapp.com/__/auth/handler",
        display_name="SAML_DISPLAY_NAME",
        enabled=True)


def _random_string(length=10):
    return "".join(random.choice(string.ascii_lowercase) for _ in range(length))


def check_saml_provider_configs(client):
    """test_create/get/list/update/delete_saml_provider_config, in the order the module's fixture runs them."""
    saml_provider = create_saml_provider_config(client)
    # test_create_saml_provider_config
    assert isinstance(saml_provider, auth.SAMLProviderConfig)
    assert saml_provider.idp_entity_id == "IDP_ENTITY_ID"
    assert saml_provider.sso_url == "https://example.com/login"
    assert saml_provider.x509_certificates == [X509_CERTIFICATES[0]]
    assert saml_provider.rp_entity_id == "RP_ENTITY_ID"
    assert saml_provider.callback_url == "https://projectId.firebaseapp.com/__/auth/handler"
    assert saml_provider.display_name == "SAML_DISPLAY_NAME"
    assert saml_provider.enabled is True
    # test_get_saml_provider_config
    provider_config = client.get_saml_provider_config(saml_provider.provider_id)
    assert isinstance(provider_config, auth.SAMLProviderConfig)
    assert provider_config.provider_id == saml_provider.provider_id
    assert provider_config.idp_entity_id == "IDP_ENTITY_ID"
    assert provider_config.sso_url == "https://example.com/login"
    assert provider_config.x509_certificates == [X509_CERTIFICATES[0]]
    assert provider_config.rp_entity_id == "RP_ENTITY_ID"
    assert provider_config.callback_url == "https://projectId.firebaseapp.com/__/auth/handler"
    assert provider_config.display_name == "SAML_DISPLAY_NAME"
    assert provider_config.enabled is True
    # test_list_saml_provider_configs
    page = client.list_saml_provider_configs()
    result = None
    for provider_config in page.iterate_all():
        if provider_config.provider_id == saml_provider.provider_id:
            result = provider_config
            break
    assert result is not None
    # test_update_saml_provider_config
    provider_config = create_saml_provider_config(client)
    try:
        provider_config = client.update_saml_provider_config(
            provider_config.provider_id,
            idp_entity_id="UPDATED_IDP_ENTITY_ID",
            sso_url="https://example.com/updated_login",
            x509_certificates=[X509_CERTIFICATES[1]],
            rp_entity_id="UPDATED_RP_ENTITY_ID",
            callback_url="https://updatedProjectId.firebaseapp.com/__/auth/handler",
            display_name="UPDATED_SAML_DISPLAY_NAME",
            enabled=False)
        assert provider_config.idp_entity_id == "UPDATED_IDP_ENTITY_ID"
        assert provider_config.sso_url == "https://example.com/updated_login"
        assert provider_config.x509_certificates == [X509_CERTIFICATES[1]]
        assert provider_config.rp_entity_id == "UPDATED_RP_ENTITY_ID"
        assert provider_config.callback_url == ("https://updatedProjectId.firebaseapp.com/"
                                                "__/auth/handler")
        assert provider_config.display_name == "UPDATED_SAML_DISPLAY_NAME"
        assert provider_config.enabled is False
    finally:
        client.delete_saml_provider_config(provider_config.provider_id)
    # test_delete_saml_provider_config
    provider_config = create_saml_provider_config(client)
    client.delete_saml_provider_config(provider_config.provider_id)
    try:
        client.get_saml_provider_config(provider_config.provider_id)
        raise AssertionError("deleted provider config still found")
    except auth.ConfigurationNotFoundError:
        pass
    # The fixture's teardown.
    client.delete_saml_provider_config(saml_provider.provider_id)

