"""Harmless memories a coding agent writes, full of ids, hashes, URLs, versions, CSS classes,
settings and secret words used in passing."""

from __future__ import annotations

import random
import re

from .cases import Memory
from .draw import ALNUM, B64, B64URL, HEX, a_uuid, b64, b64_json, pick, ulid

_COMPONENTS = (
    "api", "billing", "payments", "ledger", "invoices", "web", "admin", "worker", "scheduler",
    "mailer", "search", "gateway", "uploads", "exports", "reports", "auth", "sessions", "checkout",
    "catalog", "pricing", "webhooks", "notifications", "sync", "importer", "indexer", "cli",
)  # fmt: skip
_LONG_IDENTIFIERS = (
    "AbstractSingletonProxyFactoryBean", "getServerSidePropsForUserProfile",
    "useInvoiceLineItemsQueryClient", "XMLHttpRequestEventTarget", "Base64EncodedStringDecoder",
    "OAuth2PasswordBearerWithCookie", "PasswordStrengthMeterComponent",
    "handleStripeWebhookSignatureVerification", "refreshAccessTokenIfExpiredMiddleware",
    "SecretsManagerRotationLambdaHandler", "validateApiKeyHeaderPresence",
    "TokenBucketRateLimiterConfiguration", "x509CertificateChainValidator2",
    "pbkdf2Sha256PasswordHasherV2", "S3ObjectKeyPrefixResolverForTenant",
    "createPresignedUploadUrlForAttachment", "IEnumerableExtensionsForLinq",
    "UTF8ToBase64StringConverterFactory", "KeyValueStoreReplicationCoordinator",
)  # fmt: skip
_SNAKE_TAGS = (
    "Secretary_of_Health_and_Human_Services", "password_reset_flow", "api_key_rotation_policy",
    "token_refresh_race_condition", "flaky_integration_tests_on_arm64",
    "test_retry_budget_v2_for_nightly", "Department_of_Motor_Vehicles_export",
    "session_token_ttl_tuning", "secret_scanning_false_positives", "access_key_last_used_audit",
    "Key_Performance_Indicators_dashboard", "private_key_infrastructure_docs",
    "client_secret_basic_auth_method", "OAuth2_authorization_code_flow_with_PKCE",
    "Bearer_token_middleware_refactor", "customer_support_escalation_matrix_2024",
)  # fmt: skip
_SECRET_ENV_NAMES = (
    "STRIPE_SECRET_KEY", "DD_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL",
    "SENTRY_AUTH_TOKEN", "OPENAI_API_KEY", "JWT_SECRET", "SLACK_BOT_TOKEN", "NPM_TOKEN",
    "PGPASSWORD", "REDIS_PASSWORD", "SESSION_SECRET", "GOOGLE_CLIENT_SECRET", "HEROKU_API_KEY",
    "TWILIO_AUTH_TOKEN", "SENDGRID_API_KEY", "CLOUDFLARE_API_TOKEN", "VAULT_TOKEN",
)  # fmt: skip
_CONFIG_SETTINGS = (
    "SESSION_TOKEN_TTL=86400s", "PASSWORD_MIN_LENGTH=12", "max_tokens: 4096",
    "token_budget=8000", "JWT_EXPIRY=15m", "API_KEY_HEADER=X-Api-Key",
    "SECRET_ROTATION_DAYS=90", "auth.token.refresh_window=300", "KEY_PREFIX=acme:",
    "cache_key_version: 3", "csrf_token_length: 32", 'password_hash_algorithm = "argon2id"',
    "token_type: Bearer", "TOKEN_AUDIENCE=api.acme.dev", "secret_name: db-credentials",
    "ACCESS_TOKEN_LIFETIME_MINUTES=15", "REFRESH_TOKEN_ROTATE=true", "key_size: 4096",
    "PASSWORD_RESET_TIMEOUT=259200", "api_key_prefix_length: 8", "MAX_KEYS_PER_TENANT=25",
    "secretKeyRef.key: password", "TOKEN_URL=https://auth.acme.dev/oauth/token",
    "keepalive_timeout 65s", "SECRET_BACKEND=vault", "password_policy: zxcvbn>=3",
)  # fmt: skip
_CSS = (
    "sk-button-primary-large-variant", "sk-card-header--compact", "btn-outline-secondary",
    "hover:bg-slate-700", "md:grid-cols-3", "card__title--highlighted", "Button_primary__3xK9a",
    "sc-bdVaJa", "text-token-secondary", "key-hint-badge", "passkey-prompt-modal",
)  # fmt: skip
_TOOLS = ("pnpm", "pytest", "terraform", "kubectl", "docker", "gh", "alembic", "cargo", "go")
_PEOPLE = ("Zoe", "Kofi", "Felix", "Amara", "Jun", "Priya", "Mateo", "Ines", "Tomasz", "Lea")


class _Look:
    """Harmless values that look like secrets to a careless scanner."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choice(self, items: tuple[str, ...]) -> str:
        return self.rng.choice(items)

    def sha(self) -> str:
        return pick(self.rng, HEX, 40)

    def short_sha(self) -> str:
        return pick(self.rng, HEX, self.rng.choice((7, 8, 10, 12)))

    def sha256(self) -> str:
        return pick(self.rng, HEX, 64)

    def md5(self) -> str:
        return pick(self.rng, HEX, 32)

    def digest(self) -> str:
        return "sha256:" + self.sha256()

    def integrity(self) -> str:
        return "sha512-" + b64(self.rng, 64)

    def uuid(self) -> str:
        return a_uuid(self.rng)

    def ulid(self) -> str:
        return ulid(self.rng)

    def nanoid(self) -> str:
        return pick(self.rng, B64URL, 21)

    def stripe_id(self) -> str:
        prefix = self.choice(("pi_", "cus_", "ch_", "evt_", "in_", "sub_", "price_", "prod_"))
        return prefix + pick(self.rng, ALNUM, self.rng.choice((14, 24)))

    def trace(self) -> str:
        return pick(self.rng, HEX, 32)

    def mongo(self) -> str:
        return pick(self.rng, HEX, 24)

    def pod(self) -> str:
        return (
            f"{self.choice(_COMPONENTS)}-{pick(self.rng, HEX, 10)}-"
            f"{pick(self.rng, 'bcdfghjklmnpqrstvwxz2456789', 5)}"
        )

    def arn(self) -> str:
        return (
            f"arn:aws:iam::{self.rng.randrange(10**11, 10**12)}:role/"
            f"{self.choice(_COMPONENTS)}-deployer"
        )

    def instance_id(self) -> str:
        return "i-0" + pick(self.rng, HEX, 16)

    def version(self) -> str:
        r = self.rng
        core = f"{r.randrange(0, 25)}.{r.randrange(0, 40)}.{r.randrange(0, 20)}"
        return self.choice((core, "v" + core, core + "-rc." + str(r.randrange(1, 5)), core))

    def component(self) -> str:
        return self.choice(_COMPONENTS)

    def path(self) -> str:
        c = self.component()
        return self.choice(
            (
                f"services/{c}/src/handlers/{c}_webhook.py",
                f"apps/web/src/components/{c.capitalize()}/PasswordStrengthMeter.tsx",
                "src/auth/refresh_token_handler.py",
                f"packages/{c}/src/keys/rotateSigningKeys.ts",
                "config/secrets.example.yml",
                ".env.example",
                f"infra/terraform/modules/{c}/kms_key.tf",
                f"internal/{c}/tokenbucket/limiter_test.go",
                f"docs/adr/00{self.rng.randrange(10, 99)}-api-key-scopes.md",
                "apps/web/src/app/(marketing)/blog/[slug]/page.tsx",
            )
        )

    def url(self) -> str:
        r = self.rng
        return self.choice(
            (
                f"https://github.com/acme/{self.component()}/pull/{r.randrange(100, 9999)}",
                f"https://grafana.acme.internal/d/{pick(r, ALNUM, 9)}/api-latency?orgId=1",
                f"postgres://localhost:5432/{self.component()}_dev",
                f"redis://cache:6379/{r.randrange(16)}",
                "https://docs.google.com/document/d/" + pick(r, B64URL, 44) + "/edit",
                "https://www.figma.com/file/" + pick(r, ALNUM, 22) + "/Design-System",
                "https://www.youtube.com/watch?v=" + pick(r, B64URL, 11),
                f"https://acme.sentry.io/issues/{r.randrange(10**9, 10**10)}/",
                f"s3://acme-backups/{r.randrange(2022, 2027)}/db-{self.short_sha()}.dump",
                f"https://deploy@git.acme.dev/acme/{self.component()}.git",
                "mongodb://localhost:27017/test",
                "amqp://rabbitmq:5672/%2f",
                f"https://api.acme.dev/v2/invoices?cursor={pick(r, B64URL, 24)}&limit=50",
                "https://app.datadoghq.example/monitors/" + str(r.randrange(10**7, 10**8)),
                f"https://acme.atlassian.net/browse/OPS-{r.randrange(100, 9999)}",
            )
        )

    def identifier(self) -> str:
        return self.choice(_LONG_IDENTIFIERS)

    def snake(self) -> str:
        return self.choice(_SNAKE_TAGS)

    def env_name(self) -> str:
        return self.choice(_SECRET_ENV_NAMES)

    def setting(self) -> str:
        return self.choice(_CONFIG_SETTINGS)

    def css(self) -> str:
        return self.choice(_CSS)

    def ssh_pub(self) -> str:
        return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + pick(self.rng, B64, 43) + " deploy@ci"

    def fingerprint(self) -> str:
        return "SHA256:" + pick(self.rng, B64, 43)

    def jwt_header(self) -> str:
        return b64_json({"alg": self.choice(("RS256", "ES256")), "kid": pick(self.rng, HEX, 8)})

    def data_uri(self) -> str:
        return "data:image/png;base64," + b64(self.rng, 60)

    def image(self) -> str:
        return self.choice(
            (
                f"node:{self.rng.randrange(16, 23)}.11.1-alpine3.19",
                f"registry.acme.internal/{self.component()}:{self.version()}",
                f"python:3.1{self.rng.randrange(0, 4)}-slim-bookworm",
            )
        )

    def lines(self) -> str:
        first = self.rng.randrange(1, 400)
        return f"{first}-{first + self.rng.randrange(1, 60)}"

    def number(self) -> str:
        return str(self.rng.randrange(2, 5000))

    def ticket(self) -> str:
        return f"{self.choice(('OPS', 'ENG', 'PAY', 'SEC'))}-{self.rng.randrange(10, 9999)}"

    def person(self) -> str:
        return self.choice(_PEOPLE)

    def tool(self) -> str:
        return self.choice(_TOOLS)


# Sentences: each a claim a coding agent writes, with the look-alikes in slots.
_HARMLESS_SENTENCES = (
    "Reverted {sha} because the {component} migration locked the invoices table.",
    "The flaky {component} test was fixed in {short_sha}; rerun CI if it fails again.",
    "Production runs image {digest} since the {version} release.",
    "The lockfile pins the {component} client with integrity {integrity}.",
    "Tenant ids are UUIDs like {uuid}, never sequential integers.",
    "Job ids are ULIDs ({ulid}) so they sort by creation time.",
    "Public share links use a 21-character nanoid such as {nanoid}.",
    "The disputed charge is {stripe_id}; see {ticket} for the refund.",
    "Trace {trace} shows the {component} call spending 2s in the pool.",
    "Mongo documents in the legacy {component} store have ObjectIds like {mongo}.",
    "Pod {pod} was OOM-killed at 512Mi; the limit is now 1Gi.",
    "CI assumes {arn} through OIDC, no long-lived keys.",
    "The bastion is {instance_id} in the private subnet.",
    "Upgrade {component} to {version} before touching the retry logic.",
    "{path} holds the rotation logic; keep it free of I/O.",
    "The design review lives at {url}.",
    "Dashboards for {component} are at {url}.",
    "Use the {css} class for destructive buttons.",
    "{identifier} is the only place that decides whether a retry is safe.",
    "Set {env_name} in the CI secret store, never in the repo.",
    "{env_name} is read from Vault at boot; locally it comes from .env.local.",
    "The config has {setting} in settings; do not lower it without asking {person}.",
    "{setting} in the staging config since {ticket}.",
    "Use a strong password for the staging admin and store it in 1Password.",
    "The password reset email is sent by services/mailer/reset.ts.",
    "API keys are rotated every 90 days by the platform team.",
    "Access tokens expire after 15 minutes; refresh tokens after 30 days.",
    "The Stripe key lives in 1Password under 'Stripe prod', not in .env.",
    "Never commit .env files; the deploy token is in the CI secret store.",
    "Bearer tokens go in the Authorization header, never in the query string.",
    "Basic auth is disabled on staging since {ticket}.",
    "The JWT secret is read from JWT_SECRET at boot and must be at least 32 bytes.",
    "Secrets are mounted at /run/secrets/ by the orchestrator.",
    "The password is hashed with argon2id before it reaches the database.",
    "The admin password is kept in Vault at secret/data/{component}/admin.",
    "The LLM client caps max_tokens at 4096 for summaries.",
    "The primary key of line_items is (tenant_id, id).",
    "The cache key is the md5 of the normalised URL, e.g. {md5}.",
    "The deploy key's public key fingerprint is {fingerprint}.",
    "The repo's deploy key is the public key {ssh_pub}.",
    "The JWT header {jwt_header} decodes to the alg and kid only.",
    "The placeholder avatar is the data URI {data_uri}.",
    "The API key header is X-Api-Key and the value comes from the tenant settings page.",
    "The token bucket refills 10 tokens per second per API key.",
    "Keys are rotated monthly by the platform team; nobody copies them by hand.",
    "The tokenizer counts tokens with tiktoken before every call.",
    "Rotate the signing key with `make rotate-keys`, then redeploy {component}.",
    "The idempotency key is the request UUID, e.g. {uuid}.",
    "Secrets Manager holds the database credentials; the app reads them with IAM.",
    "The GitHub Actions token needs contents: write to push tags.",
    "docker build uses {image} as the base image.",
    "Pin {tool} to {version} in CI; newer versions change the output format.",
    "{person} owns {component}; ask before changing its public API.",
    "The webhook signature is checked with a constant-time compare in {path}.",
    "Run `{tool} test --filter {component}` before pushing changes to {path}.",
    "The password field on the signup form must allow 128 characters.",
    "Run `kubectl get secret {component}-db -o yaml` to see which keys the secret has.",
    "The {component} service reads its password from the PGPASSWORD variable set by the pod.",
    "OAuth2 client credentials flow: the secret is fetched from Vault at startup.",
    "Commit {sha} introduced the token refresh race; the fix is in {short_sha}.",
    "Keep {snake} in the tags so the dashboard groups these memories.",
    "The {component} export file is named after its sha256, e.g. {sha256}.json.",
    "The session cookie is signed; the secret rotates with every deploy.",
    "Run `pnpm test --filter {component} -- --runInBand` for the flaky suite.",
    "Migrations run with `alembic upgrade head` in the release phase.",
    "The status badge shows build {number} of the {component} pipeline.",
    "Ledger entries are immutable; a correction is a new entry pointing at {uuid}.",
    "The legacy {component} endpoint accepts an api_key query parameter; we are removing it.",
    "Store the Twilio auth token in Vault; the SID alone is not secret.",
    "Session tokens are 32 random bytes, base64url encoded, stored hashed.",
    "Access keys older than 90 days are flagged by the {component} audit job.",
    "Use `aws sts get-caller-identity` to check which access key is active.",
    "The secret key for the local dev server is generated on first run.",
    "The password policy requires 12 characters and a zxcvbn score of 3.",
    "Use `openssl rand -hex 32` to generate a new webhook secret.",
    "Keycloak realm {component} uses client authentication with a signed JWT.",
    "The private key never leaves the HSM; signing goes through the KMS API.",
    "The password for staging is in the team vault under '{component} staging'.",
    "The token is stored in the OS keychain by the CLI.",
    "Auth tokens are scoped per tenant; see {path}.",
    "Postgres connects with DATABASE_URL=postgres://localhost:5432/{component}_dev in dev.",
    "Pipe the registry token with --password-stdin so it never lands in argv.",
    "GitHub tokens look like ghp_ followed by 36 characters; the scanner in CI blocks them.",
    "In the workflow, token: ${{ secrets.GITHUB_TOKEN }} is enough for the release job.",
    "GITHUB_TOKEN: ${{ github.token }} works for reads, not for pushing tags.",
    "The JWT_SECRET env var must be set; generate one with `openssl rand -base64 32`.",
    "The Kubernetes secret is referenced as secret: db-credentials in the chart.",
    "The Redis key is sessions:{uuid} and expires after a day.",
    "The token endpoint is /oauth/token and it only accepts POST.",
    "SSH key: ~/.ssh/id_ed25519, added to the agent by the dev container.",
    "The signing key id is {short_sha}; the key material stays in KMS.",
    "The API key prefix is ak_live_ so leaked keys are easy to grep for.",
    "Use `token` as the username and the PAT as the password for the registry.",
    "The secret name is prod/{component}/credentials in Secrets Manager.",
    "The license key format is XXXX-XXXX-XXXX-XXXX, validated in {path}.",
    "The deploy token is a fine-grained PAT with contents: read only.",
    "The webhook secret header is X-Hub-Signature-256 and we verify it with HMAC.",
    "secret_key_base is set from SECRET_KEY_BASE in production.",
    "The Sentry DSN is https://{md5}@o{number}.ingest.sentry.io/{number} for the web app.",
    "`.npmrc` holds //npm.acme.internal/:_authToken=${NPM_TOKEN}, filled in by CI.",
    "The LLM token budget: 8k per request, 32k per session.",
    "Http2ServerUpgradeCodecFactoryImplV3Provider is the class that negotiates h2c.",
    "The Stripe publishable key is pk_live_{nanoid}{nanoid}{nanoid}; it is public by design.",
    "The license key is stored in LICENSE_KEY and read once at boot.",
    "Ansible reads password: !vault | from group_vars/prod.yml.",
    "The template has token: '{{ vault_token }}' and Ansible fills it in.",
    'The DSN uses password: "%(DB_PASSWORD)s" and ConfigParser interpolates it.',
    "The app reads password=os.getenv('DB_PASSWORD') at import time.",
    "Rails reads password: Rails.application.credentials.db_password in database.yml.",
    "The compose file has password: DB_PASSWORD as a reference to the env file.",
    "PGPASSWORD=$PGPASSWORD psql -h localhost is how the backup job connects.",
    "The cache key is a sha256 of the query, e.g. {sha256}.",
    "The fixture encodes 'hello world' as aGVsbG8gd29ybGQ= in base64.",
    "The webhook test payload starts with eyJldmVudCI6InB1c2giLCJyZWYiOiJyZWZzL2hlYWRzL21haW4ifQ.",
    "Password hashing uses bcrypt with cost 12; see {path}.",
    "The key rotation runbook is {url}.",
    "Bump the token bucket to 50 tokens per key in {path}.",
    "Basic authentication is only for the legacy SOAP bridge; see {ticket}.",
    "The PR that added the token refresh is {url}.",
    "A password manager entry named '{component} prod' holds the credentials.",
    "mkdir -p build/{component} before running the exporter.",
    "docker run -p 8080:80 -u 1000:1000 {image} reproduces the permission bug.",
    "The secretKeyRef key: password points the env var at the right field.",
)

_HARMLESS_REASONS = (
    "",
    "",
    "{person} asked for it in review of #{number}",
    "found during {ticket}",
    "cost an afternoon on staging",
    "the incident on {ticket} traced back to it",
    "otherwise the deploy fails at the migration step",
    "see {url}",
    "measured with `{tool} bench`: {number} ms p95",
    "the old approach leaked tokens into logs",
    "security review asked that no password or key ever sits in the repo",
    "CI started failing after {short_sha}",
    "{identifier} was the culprit",
    "agreed in the ADR, see {path}",
    "the Datadog monitor {number} paged twice",
)

_HARMLESS_TRIGGERS = (
    "",
    "",
    "",
    "git push --force",
    r"pnpm test --filter {component}",
    r"terraform apply",
    r"kubectl\s+get\s+secrets?",
    r"curl .* -H 'Authorization: Bearer \$TOKEN'",
    r"aws s3 cp .* s3://acme-backups/",
    r"docker push registry\.acme\.internal/{component}",
    r"export [A-Z_]*(TOKEN|SECRET|PASSWORD)=",
    r"git (reset|checkout) {short_sha}",
    r"psql postgres://localhost:5432/{component}_dev",
    r"alembic downgrade",
    r"gh release create v\d+\.\d+\.\d+",
    "**/.env*",
    "config/secrets/**",
    "**/*.pem",
    "services/{component}/**/*.py",
    r"docker login .* --password-stdin",
    r"mysql -u \w+ -p\b",
    r"kubectl create secret generic \S+ --from-literal",
    r"gh secret set \w+",
    r"git log .*{short_sha}",
)

_REFS = (
    "",
    "",
    "{path}",
    "{path}:{lines}",
    "{path}#{identifier}",
    "{sha}",
    "{short_sha}",
)


_SLOT = re.compile(r"\{([a-z0-9_]+)\}")


def _fill(template: str, look: _Look) -> str:
    """`template` with every `{slot}` naming a `_Look` method drawn from it (each slot drawn
    afresh); other braces (`${NPM_TOKEN}`, `{{ vault_token }}`) stay as written."""

    def draw(m: re.Match[str]) -> str:
        maker = getattr(look, m.group(1), None)
        return maker() if callable(maker) else m.group()

    return _SLOT.sub(draw, template)


def harmless(n: int = 1000, seed: int = 0) -> list[Memory]:
    """n harmless memories, deterministic in (n, seed)."""
    rng = random.Random(f"harmless-{seed}")
    look = _Look(rng)
    memories = []
    for i in range(n):
        tags = [look.component(), rng.choice(("auth", "ci", "deploy", "payments", "perf"))]
        if rng.random() < 0.3:
            tags.append(look.snake())
        if rng.random() < 0.1:
            tags.append(look.choice(_CSS))
        trigger = _fill(rng.choice(_HARMLESS_TRIGGERS), look)
        memories.append(
            Memory(
                id=f"h-{i:04d}",
                sentence=_fill(rng.choice(_HARMLESS_SENTENCES), look),
                reason=_fill(rng.choice(_HARMLESS_REASONS), look),
                tags=tuple(dict.fromkeys(tags)),
                source_ref=_fill(rng.choice(_REFS), look),
                trigger=trigger,
            )
        )
    return memories
