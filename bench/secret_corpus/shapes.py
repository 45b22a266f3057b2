"""The secret shapes, and each secret placed in every field `remember` scans."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable

from .cases import FIELDS, Instance, SecretCase
from .draw import (
    ALNUM,
    B64,
    B64URL,
    HEX,
    HOSTS,
    NAMES,
    UPPER_ALNUM,
    USERS,
    WORDS_PASSWORDS,
    a_uuid,
    b64,
    b64_json,
    human_password,
    pick,
    regex_escaped,
)

Maker = Callable[[random.Random], Instance]
SHAPES: dict[str, Maker] = {}


def shape(name: str) -> Callable[[Maker], Maker]:
    """Register a secret shape under `name`."""

    def register(maker: Maker) -> Maker:
        SHAPES[name] = maker
        return maker

    return register


def _token(
    rng: random.Random, value: str, names: tuple[str, ...], prose: tuple[str, ...]
) -> Instance:
    """An instance for a token: mentioned in prose or as an assignment to one of `names`."""
    name = rng.choice(names)
    style = rng.randrange(4)
    if style == 0:
        mention = rng.choice(prose).format(v=value)
    elif style == 1:
        mention = f"{name}={value}"
    elif style == 2:
        mention = f'{name}: "{value}"'
    else:
        mention = value
    compact = rng.choice((value, f"{name}={value}"))
    command = rng.choice(
        (
            f"export {name}={value}",
            f"{name}={value} pnpm run deploy",
            f"curl -H 'Authorization: Bearer {value}' https://api.acme.dev/v1/ping",
            f"echo {value} | docker login --password-stdin",
        )
    )
    return Instance(mention, compact, command)


@shape("aws access key id")
def _aws_id(rng: random.Random) -> Instance:
    value = rng.choice(("AKIA", "ASIA")) + pick(rng, UPPER_ALNUM, 16)
    return _token(
        rng,
        value,
        ("AWS_ACCESS_KEY_ID", "aws_access_key_id"),
        ("the deploy user's key id is {v}", "IAM user ci-deployer has {v}", "{v} belongs to ci"),
    )


@shape("aws secret access key")
def _aws_secret(rng: random.Random) -> Instance:
    value = pick(rng, B64, 40)
    name = rng.choice(("AWS_SECRET_ACCESS_KEY", "aws_secret_access_key"))
    mention = rng.choice(
        (
            f"aws configure takes {value} as the second value",
            f"the ci-deployer credentials are AKIA-less now: {value}",
            f"{value}",
            f"{name} = {value}",
            f"paste {value} when the S3 backup script prompts",
        )
    )
    return Instance(
        mention,
        rng.choice((value, f"{name}={value}")),
        rng.choice((f"export {name}={value}", f"aws configure set {name} {value}")),
    )


@shape("gcp service account json")
def _gcp_json(rng: random.Random) -> Instance:
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + b64(rng, 600)
    lines = [body[i : i + 64] for i in range(0, 64 * 3, 64)]
    key_id = pick(rng, HEX, 40)
    mention = (
        f'{{"type": "service_account", "project_id": "acme-prod-{rng.randrange(100000, 999999)}", '
        f'"private_key_id": "{key_id}", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + "\\n".join(lines)
        + '\\n"}'
    )
    if rng.random() < 0.5:
        mention = f'"private_key": "{lines[0]}\\n{lines[1]}'
    return Instance(
        mention,
        rng.choice((lines[1], f"private_key={lines[1]}")),
        f"gcloud auth activate-service-account --key-file <(echo '{lines[0]}{lines[1]}')",
    )


@shape("azure storage account key")
def _azure_key(rng: random.Random) -> Instance:
    key = b64(rng, 64)
    account = rng.choice(NAMES) + "store"
    conn = (
        f"DefaultEndpointsProtocol=https;AccountName={account};AccountKey={key};"
        "EndpointSuffix=core.windows.net"
    )
    mention = rng.choice((conn, f"the storage account key is {key}", f"AccountKey={key}"))
    return Instance(
        mention,
        rng.choice((f"AccountKey={key}", key)),
        f"az storage blob list --account-name {account} --account-key {key}",
    )


@shape("azure sas token")
def _azure_sas(rng: random.Random) -> Instance:
    sig = b64(rng, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    account = rng.choice(NAMES)
    url = (
        f"https://{account}.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rl"
        f"&se=2026-0{rng.randrange(1, 9)}-01T00:00:00Z&spr=https&sig={sig}"
    )
    return Instance(
        rng.choice((url, f"the SAS URL {url} lets the job read backups")),
        url,
        f"azcopy copy '{url}' ./restore",
    )


@shape("github classic token")
def _github_classic(rng: random.Random) -> Instance:
    value = "ghp_" + pick(rng, ALNUM, 36)
    return _token(
        rng, value, ("GITHUB_TOKEN", "GH_TOKEN"), ("the release bot uses {v}", "CI pushes as {v}")
    )


@shape("github oauth or app token")
def _github_other(rng: random.Random) -> Instance:
    value = rng.choice(("gho_", "ghu_", "ghs_", "ghr_")) + pick(rng, ALNUM, 36)
    return _token(
        rng, value, ("GITHUB_TOKEN", "GH_APP_TOKEN"), ("the app token today is {v}", "got {v}")
    )


@shape("github fine-grained token")
def _github_fine(rng: random.Random) -> Instance:
    value = "github_pat_" + pick(rng, ALNUM, 22) + "_" + pick(rng, ALNUM, 59)
    return _token(rng, value, ("GH_PAT", "GITHUB_PAT"), ("renovate authenticates with {v}",))


@shape("gitlab token")
def _gitlab(rng: random.Random) -> Instance:
    value = "glpat-" + pick(rng, B64URL, 20)
    return _token(rng, value, ("GITLAB_TOKEN", "CI_JOB_TOKEN"), ("the mirror job pushes with {v}",))


@shape("slack token")
def _slack(rng: random.Random) -> Instance:
    kind = rng.choice(("xoxb", "xoxp", "xoxa", "xoxe"))
    value = f"{kind}-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-" + pick(
        rng, ALNUM, 24
    )
    return _token(rng, value, ("SLACK_BOT_TOKEN", "SLACK_TOKEN"), ("the alerts bot posts as {v}",))


@shape("slack webhook")
def _slack_webhook(rng: random.Random) -> Instance:
    url = (
        "https://hooks.slack.com/services/T"
        + pick(rng, UPPER_ALNUM, 8)
        + "/B"
        + pick(rng, UPPER_ALNUM, 10)
        + "/"
        + pick(rng, ALNUM, 24)
    )
    return Instance(f"deploy notices go to {url}", url, f"curl -X POST -d @msg.json {url}")


@shape("stripe secret key")
def _stripe(rng: random.Random) -> Instance:
    value = rng.choice(("sk_live_", "rk_live_", "sk_test_")) + pick(
        rng, ALNUM, rng.choice((24, 99))
    )
    return _token(
        rng,
        value,
        ("STRIPE_SECRET_KEY", "STRIPE_API_KEY"),
        ("payments in prod use {v}", "the refund script needs {v}"),
    )


@shape("stripe webhook secret")
def _stripe_webhook(rng: random.Random) -> Instance:
    value = "whsec_" + pick(rng, ALNUM, 32)
    return _token(rng, value, ("STRIPE_WEBHOOK_SECRET",), ("webhooks are verified against {v}",))


@shape("openai api key")
def _openai(rng: random.Random) -> Instance:
    if rng.random() < 0.5:
        value = "sk-" + pick(rng, ALNUM, 48)
    else:
        value = "sk-proj-" + pick(rng, B64URL, 74) + "T3BlbkFJ" + pick(rng, B64URL, 74)
    return _token(rng, value, ("OPENAI_API_KEY",), ("the eval harness calls the model with {v}",))


@shape("anthropic api key")
def _anthropic(rng: random.Random) -> Instance:
    value = "sk-ant-api03-" + pick(rng, B64URL, 93) + "AA"
    return _token(rng, value, ("ANTHROPIC_API_KEY",), ("the agent harness uses {v}",))


@shape("twilio credential")
def _twilio(rng: random.Random) -> Instance:
    sid = "SK" + pick(rng, HEX, 32)
    token = pick(rng, HEX, 32)
    mention = rng.choice(
        (
            f"Twilio API key {sid} sends the SMS codes",
            f"TWILIO_AUTH_TOKEN={token}",
            f"the Twilio auth token is {token}",
        )
    )
    return Instance(
        mention,
        rng.choice((sid, f"TWILIO_AUTH_TOKEN={token}")),
        f"curl -u AC{pick(rng, HEX, 32)}:{token} https://api.twilio.example/2010-04-01",
    )


@shape("sendgrid key")
def _sendgrid(rng: random.Random) -> Instance:
    value = "SG." + pick(rng, B64URL, 22) + "." + pick(rng, B64URL, 43)
    return _token(rng, value, ("SENDGRID_API_KEY",), ("transactional mail goes out with {v}",))


@shape("npm token")
def _npm(rng: random.Random) -> Instance:
    value = "npm_" + pick(rng, ALNUM, 36)
    mention = rng.choice(
        (f"//npm.acme.internal/:_authToken={value}", f"NPM_TOKEN={value}", f"publish with {value}")
    )
    return Instance(mention, value, f"npm config set //npm.acme.internal/:_authToken {value}")


@shape("pypi token")
def _pypi(rng: random.Random) -> Instance:
    value = "pypi-AgE" + pick(rng, B64URL, 150)
    return _token(rng, value, ("TWINE_PASSWORD", "PYPI_TOKEN"), ("release uploads use {v}",))


@shape("json web token")
def _jwt(rng: random.Random) -> Instance:
    header = b64_json({"alg": rng.choice(("HS256", "RS256")), "typ": "JWT"})
    payload = b64_json(
        {"sub": str(rng.randrange(10**6)), "iat": 1_700_000_000 + rng.randrange(10**7)}
    )
    value = f"{header}.{payload}.{b64(rng, 32, urlsafe=True).rstrip('=')}"
    return _token(rng, value, ("ACCESS_TOKEN", "id_token"), ("the test user's session is {v}",))


def _pem(rng: random.Random, label: str, prefix: str, n_bytes: int = 400) -> list[str]:
    """A PEM private key: header, three body lines, footer, the label in any case."""
    body = prefix + b64(rng, n_bytes)
    lines = [body[i : i + 64] for i in range(0, 192, 64)]
    case = rng.choice((str.upper, str.lower, str.title))
    return [case(f"-----BEGIN {label}-----"), *lines, case(f"-----END {label}-----")]


def _pem_instance(rng: random.Random, block: list[str]) -> Instance:
    style = rng.randrange(3)
    if style == 0:
        mention = "\n".join(block)
    elif style == 1:
        mention = f"the signing key is {block[0]} {block[1]} {block[2]}"
    else:
        mention = "\\n".join(block[:3])  # as a JSON string holds it
    return Instance(mention, block[2], f"echo '{block[0]}' > /tmp/key.pem")


@shape("pem rsa private key")
def _pem_rsa(rng: random.Random) -> Instance:
    return _pem_instance(rng, _pem(rng, "RSA PRIVATE KEY", "MIIEowIBAAKCAQEA"))


@shape("pem ec private key")
def _pem_ec(rng: random.Random) -> Instance:
    return _pem_instance(rng, _pem(rng, "EC PRIVATE KEY", "MHcCAQEEI", 120))


@shape("pem pkcs8 private key")
def _pem_pkcs8(rng: random.Random) -> Instance:
    label = rng.choice(("PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY"))
    return _pem_instance(rng, _pem(rng, label, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"))


@shape("pgp private key block")
def _pgp(rng: random.Random) -> Instance:
    return _pem_instance(rng, _pem(rng, "PGP PRIVATE KEY BLOCK", "lQOYBGX"))


@shape("openssh private key")
def _openssh(rng: random.Random) -> Instance:
    return _pem_instance(
        rng, _pem(rng, "OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ")
    )


@shape("private key body after words")
def _pem_body(rng: random.Random) -> Instance:
    prefix = rng.choice(("MIIEowIBAAKCAQEA", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "MHcCAQEEI"))
    body = prefix + b64(rng, 300)
    line, line2 = body[:64], body[64:128]
    mention = rng.choice(
        (
            f"the private key is {line} {line2}",
            f"private key: {line}",
            f"deploy's private key starts {line}",
            f"here is the private key {line}{line2}",
        )
    )
    return Instance(mention, line2, f"printf '%s' {line} | base64 -d > deploy.der")


def _db_url(rng: random.Random, scheme: str, password: str, user: str | None = None) -> Instance:
    user = rng.choice(USERS) if user is None else user
    host = rng.choice(HOSTS)
    url = f"{scheme}://{user}:{password}@{host}"
    tail = {"redis": ":6379/0", "amqp": ":5672/%2f", "mongodb+srv": "/app?retryWrites=true"}
    url += tail.get(scheme, f":{rng.choice((5432, 3306, 6432))}/app_prod")
    mention = rng.choice(
        (
            f"the reporting replica is {url}",
            f"DATABASE_URL={url}",
            f"connect with {url} from the bastion",
            url,
        )
    )
    tool = {"redis": "redis-cli -u", "amqp": "rabbitmqadmin --uri", "mongodb+srv": "mongosh"}
    return Instance(mention, url, f"{tool.get(scheme, 'psql')} {url}")


@shape("postgres url with password")
def _pg(rng: random.Random) -> Instance:
    return _db_url(rng, rng.choice(("postgres", "postgresql", "postgresql+psycopg")), _pw(rng))


def _pw(rng: random.Random) -> str:
    """A password that is safe inside a URL's userinfo (no @, space or #)."""
    return human_password(rng).replace("@", "a").replace("#", "h")


@shape("mysql url with password")
def _mysql(rng: random.Random) -> Instance:
    password = rng.choice((_pw(rng), "pa/ss:word" + str(rng.randrange(100)), pick(rng, B64, 16)))
    return _db_url(rng, rng.choice(("mysql", "mysql+pymysql", "mariadb")), password)


@shape("redis url with password")
def _redis(rng: random.Random) -> Instance:
    return _db_url(rng, rng.choice(("redis", "rediss")), _pw(rng), user=rng.choice(("", "default")))


@shape("mongodb url with password")
def _mongo(rng: random.Random) -> Instance:
    return _db_url(rng, rng.choice(("mongodb+srv", "mongodb")), _pw(rng))


@shape("amqp url with password")
def _amqp(rng: random.Random) -> Instance:
    return _db_url(rng, rng.choice(("amqp", "amqps")), _pw(rng))


@shape("authorization bearer")
def _bearer(rng: random.Random) -> Instance:
    value = rng.choice((pick(rng, HEX, 40), b64(rng, 32, urlsafe=True).rstrip("="), a_uuid(rng)))
    header = f"Authorization: Bearer {value}"
    mention = rng.choice(
        (header, f"call the admin API with -H '{header}'", f"the status page takes {header}")
    )
    return Instance(
        mention,
        rng.choice((f"Authorization:Bearer:{value}", f"bearer={value}")),
        f"curl -H '{header}' https://status.acme.dev/api/v1/incidents",
    )


@shape("authorization basic")
def _basic(rng: random.Random) -> Instance:
    cred = base64.b64encode(f"{rng.choice(USERS)}:{_pw(rng)}".encode()).decode()
    header = f"Authorization: Basic {cred}"
    return Instance(
        rng.choice((header, f"the legacy SOAP endpoint wants {header}")),
        rng.choice((f"Authorization:Basic:{cred}", f"basic_auth={cred}")),
        f"curl -H '{header}' https://legacy.acme.internal/soap",
    )


@shape("password assignment")
def _password_assign(rng: random.Random) -> Instance:
    value = human_password(rng)
    name = rng.choice(
        ("password", "passwd", "DB_PASSWORD", "db_pass", "PGPASSWORD", "MYSQL_ROOT_PASSWORD",
         "admin_password", "smtpPassword", "redis_pwd", "--password")
    )  # fmt: skip
    sep = rng.choice(("=", ": ", " = ", "=", " := "))
    quote = rng.choice(("", "", '"', "'"))
    assignment = f"{name}{sep}{quote}{value}{quote}"
    mention = rng.choice(
        (
            assignment,
            f"in staging {assignment}",
            f"{assignment} (set by ops)",
            f"use {assignment}",
            f"kubectl create secret generic db --from-literal={name.lstrip('-')}={value}",
            f"jdbc:postgresql://db:5432/app?user=app&{name.lstrip('-')}={value}",
            f'{{"user": "app", "{name.lstrip("-")}": "{value}"}}',
        )
    )
    return Instance(mention, f"{name.lstrip('-')}={value}", f"mysqladmin --user=root {assignment}")


@shape("password in prose")
def _password_prose(rng: random.Random) -> Instance:
    value = rng.choice((rng.choice(WORDS_PASSWORDS), human_password(rng)))
    who = rng.choice(("admin", "root", "staging", "Grafana admin", "wifi", "VPN"))
    mention = rng.choice(
        (
            f"the {who} password is {value}",
            f"The password for {who} is {value}.",
            f"{who} password: {value}",
            f"log in to the jump box with password {value}",
            f"password is '{value}', ask before changing it",
        )
    )
    account = who.split()[-1]
    return Instance(
        mention, f"{account}_password={value}", f"sshpass -p '{value}' ssh {account}@bastion"
    )


@shape("keyword hex secret")
def _keyword_hex(rng: random.Random) -> Instance:
    value = pick(rng, HEX, rng.choice((32, 40, 64)))
    word = rng.choice(
        ("webhook secret", "signing secret", "API key", "token", "secret key", "auth token",
         "encryption key", "HMAC key", "license key", "client secret")
    )  # fmt: skip
    mention = rng.choice(
        (f"the {word} is {value}", f"{word}: {value}", f"{word} {value}", f"use {word} = {value}")
    )
    env = word.upper().replace(" ", "_")
    return Instance(mention, f"{env}={value}", f"export {env}={value}")


@shape("keyword base64 secret")
def _keyword_b64(rng: random.Random) -> Instance:
    value = rng.choice((b64(rng, 32), b64(rng, 24, urlsafe=True).rstrip("="), pick(rng, ALNUM, 50)))
    word = rng.choice(
        ("session secret", "JWT secret", "encryption key", "master key", "secret",
         "cookie signing key", "SECRET_KEY", "app key", "access token")
    )  # fmt: skip
    mention = rng.choice(
        (f"the {word} is {value}", f"{word}: {value}", f"{word} = '{value}'", f"{word} {value}")
    )
    env = word.upper().replace(" ", "_")
    return Instance(mention, f"{env}={value}", f"export {env}='{value}'")


@shape("dotenv line")
def _dotenv(rng: random.Random) -> Instance:
    name, value = rng.choice(
        (
            ("SECRET_KEY_BASE", pick(rng, HEX, 128)),
            ("APP_KEY", "base64:" + b64(rng, 32)),
            ("JWT_SECRET", pick(rng, ALNUM, 48)),
            ("DJANGO_SECRET_KEY", pick(rng, ALNUM + "!@#%^&*(-_=+)", 50)),
            ("NEXTAUTH_SECRET", b64(rng, 32)),
            ("CLOUDFLARE_API_TOKEN", pick(rng, B64URL, 40)),
            ("SENTRY_AUTH_TOKEN", pick(rng, HEX, 64)),
            ("ENCRYPTION_KEY", pick(rng, HEX, 64)),
        )
    )
    line = f"{name}={value}"
    mention = rng.choice((line, f".env on staging has {line}", f"{line} # rotated last week"))
    return Instance(mention, line, f"echo '{line}' >> .env")


@shape("datadog key")
def _datadog(rng: random.Random) -> Instance:
    api, app = pick(rng, HEX, 32), pick(rng, HEX, 40)
    mention = rng.choice(
        (
            f"The Datadog API key is {api}",
            f"DD_API_KEY={api}",
            f"DD_APP_KEY={app}",
            f"datadog app key: {app}",
        )
    )
    return Instance(mention, f"DD_API_KEY={api}", f"DD_API_KEY={api} datadog-ci sourcemaps upload")


@shape("heroku api key")
def _heroku(rng: random.Random) -> Instance:
    value = a_uuid(rng)
    mention = rng.choice(
        (f"HEROKU_API_KEY={value}", f"the Heroku API key is {value}", f"heroku token: {value}")
    )
    return Instance(
        mention, f"HEROKU_API_KEY={value}", f"HEROKU_API_KEY={value} heroku releases -a acme"
    )


@shape("google api key")
def _google(rng: random.Random) -> Instance:
    value = "AIza" + pick(rng, B64URL, 35)
    return _token(rng, value, ("GOOGLE_MAPS_KEY", "FIREBASE_API_KEY"), ("maps render with {v}",))


@shape("google oauth client secret")
def _gocspx(rng: random.Random) -> Instance:
    value = "GOCSPX-" + pick(rng, B64URL, 28)
    return _token(rng, value, ("GOOGLE_CLIENT_SECRET",), ("SSO login is configured with {v}",))


@shape("hugging face token")
def _hf(rng: random.Random) -> Instance:
    value = "hf_" + pick(rng, ALNUM, 34)
    return _token(rng, value, ("HF_TOKEN",), ("model downloads use {v}",))


@shape("other provider token")
def _other_provider(rng: random.Random) -> Instance:
    value = rng.choice(
        (
            "shpat_" + pick(rng, HEX, 32),
            "dop_v1_" + pick(rng, HEX, 64),
            "key-" + pick(rng, HEX, 32),
            f"{rng.randrange(10**8, 10**10)}:AA" + pick(rng, B64URL, 33),
            "hvs." + pick(rng, B64URL, 90),
            "dckr_pat_" + pick(rng, B64URL, 27),
            "AGE-SECRET-KEY-1" + pick(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
            "PMAK-" + pick(rng, HEX, 24) + "-" + pick(rng, HEX, 34),
            "lin_api_" + pick(rng, ALNUM, 40),
            "dapi" + pick(rng, HEX, 32),
            "glsa_" + pick(rng, ALNUM, 32) + "_" + pick(rng, HEX, 8),
            "sbp_" + pick(rng, HEX, 40),
            pick(rng, B64URL, 3) + "8Q~" + pick(rng, B64URL + "~.", 31),
        )
    )
    return _token(rng, value, ("SERVICE_TOKEN", "API_TOKEN"), ("the integration uses {v}",))


@shape("command-line credential")
def _cli_credential(rng: random.Random) -> Instance:
    password = _pw(rng)
    user = rng.choice(USERS)
    command = rng.choice(
        (
            f"curl -u {user}:{password} https://jenkins.acme.internal",
            f"mysql -u{user} -p{password} app_prod",
            f"sshpass -p '{password}' ssh {user}@bastion",
            f"docker login -u {user} -p {password} registry.acme.internal",
        )
    )
    netrc = f"machine ci.acme.internal login {user} password {password}"
    mention = rng.choice((f"to get in: {command}", f"~/.netrc on the runner: {netrc}"))
    return Instance(mention, f"--user={user}:{password}", command)


# -- placing a secret in each field --------------------------------------------------------------

_SENTENCES = (
    "{m}",
    "Heads up: {m}",
    "For the staging smoke test, {m}.",
    "{m} (from the ops runbook)",
    "Deploy note - {m}",
    "The nightly export breaks without this: {m}",
    "Found in the old wiki: {m}",
    "When the job asks, {m}",
)
_REASONS = (
    "pasted from the incident channel: {m}",
    "the runbook says {m}",
    "ops shared it in the handover ({m})",
    "{m}",
    "so the next session does not have to ask again; {m}",
)
_TAGS = ("deploy", "staging", "ops", "ci", "payments", "infra", "auth", "backup", "creds")
_REF_PREFIXES = ("", "", ".env#", "ops/runbook.md#", "config/")


def _place(rng: random.Random, instance: Instance, field: str) -> str:
    # Sentence and reason as `remember` scans them: whitespace collapsed.
    if field == "sentence":
        return " ".join(rng.choice(_SENTENCES).format(m=instance.mention).split())
    if field == "reason":
        return " ".join(rng.choice(_REASONS).format(m=instance.mention).split())
    if field == "tags":
        tags = [*rng.sample(_TAGS, rng.randrange(1, 3)), instance.compact]
        rng.shuffle(tags)
        return " ".join(tags)
    if field == "source_ref":
        return rng.choice(_REF_PREFIXES) + instance.compact
    command = instance.command
    return regex_escaped(command) if rng.random() < 0.5 else command


def secrets(per_shape: int = 6, seed: int = 0) -> list[SecretCase]:
    """`per_shape` secrets of each shape, each placed in every field (one case per field)."""
    rng = random.Random(f"secrets-{seed}")
    cases: list[SecretCase] = []
    for name, make in SHAPES.items():
        for _ in range(per_shape):
            instance = make(rng)
            for field in FIELDS:
                cases.append(
                    SecretCase(f"s-{len(cases):05d}", name, field, _place(rng, instance, field))
                )
    return cases
