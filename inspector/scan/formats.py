"""Credentials known by their shape: vendors' key prefixes, and the live- or production-key prefix any vendor uses.

A vendor that prefixes its keys (`sk-proj-`, `ghp_`, `glpat-`, `whsec_`, `shpat_`, `dop_v1_`, `gsk_`, `hvs.`, ...)
makes a key recognisable wherever it is quoted, without a name beside it; `FORMATS` lists them with what each is
and the severity of a leak (`warn` for a test-mode key, which vendors publish in their docs: `sk_test_`). detect-secrets
(`detectors`) adds the vendors it knows and these do not.

A prefix names the environment as often as the vendor: `pg_live_9i8u…`, `api_prod_8a7b…`, `as_prod_2p3o…` (a
payment gateway's live key, a service's production key) are keys of vendors no list knows. `ENVIRONMENT_KEY`
matches a short service prefix, then `live`/`prod`/`production`/`secret`, then a random body (`entropy.randomish`):
an id's prefix (`cus_`, `prod_`, `ch_`, `pi_`: Stripe's customer, product, charge ids) has no such second part.
"""

from __future__ import annotations

import re

from mcp_review.scan.rules import any_of

# (pattern, severity, what it is)
FORMATS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), "fail", "an AWS access key id"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b"), "fail", "a GitHub token"),
    (re.compile(r"\bgl(?:pat|ptt|dt|rt|oas)-[A-Za-z0-9_-]{20,}"), "fail", "a GitLab token"),
    (re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{20,}"), "fail", "a Slack token"),
    (
        re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"),
        "fail",
        "a Slack webhook URL (its path is the secret)",
    ),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), "fail", "an Anthropic API key"),
    (re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{20,}"), "fail", "an OpenAI API key"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), "fail", "a Google API key"),
    (re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}"), "fail", "a Google OAuth access token"),
    (re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{28}\b"), "fail", "a Google OAuth client secret"),
    (re.compile(r"\b(?:sk|rk)_live_[0-9A-Za-z]{20,}\b"), "fail", "a Stripe live key"),
    (re.compile(r"\b(?:sk|rk)_test_[0-9A-Za-z]{20,}\b"), "warn", "a Stripe test key"),
    (re.compile(r"\bwhsec_[A-Za-z0-9+/=]{24,}"), "fail", "a Stripe webhook signing secret"),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), "fail", "a Hugging Face token"),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), "fail", "an npm token"),
    (re.compile(r"\bpypi-AgE[A-Za-z0-9_-]{50,}"), "fail", "a PyPI token"),
    (re.compile(r"\brubygems_[a-f0-9]{48}\b"), "fail", "a RubyGems API key"),
    (re.compile(r"\bSG\.[\w-]{22}\.[\w-]{43}\b"), "fail", "a SendGrid API key"),
    (re.compile(r"\bkey-[0-9a-f]{32}\b"), "fail", "a Mailgun API key"),
    (re.compile(r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b"), "fail", "a Brevo (Sendinblue) API key"),
    (re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"), "fail", "a Shopify access token"),
    (re.compile(r"\bdo[opr]_v1_[a-f0-9]{64}\b"), "fail", "a DigitalOcean token"),
    (re.compile(r"\blin_api_[A-Za-z0-9]{40}\b"), "fail", "a Linear API key"),
    (re.compile(r"\bgsk_[A-Za-z0-9]{48,}\b"), "fail", "a Groq API key"),
    (re.compile(r"\br8_[A-Za-z0-9]{37,}\b"), "fail", "a Replicate API token"),
    (re.compile(r"\bpplx-[A-Za-z0-9]{40,}\b"), "fail", "a Perplexity API key"),
    (re.compile(r"\bxai-[A-Za-z0-9]{60,}\b"), "fail", "an xAI API key"),
    (re.compile(r"\b(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})\b"), "fail", "a Notion integration token"),
    (re.compile(r"\bfigd_[A-Za-z0-9_-]{40,}"), "fail", "a Figma access token"),
    (re.compile(r"\bdapi[a-f0-9]{32}(?:-\d)?\b"), "fail", "a Databricks access token"),
    (re.compile(r"\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,2}"), "fail", "a Grafana token"),
    (re.compile(r"\bsntry[su]_[A-Za-z0-9+/=_-]{50,}"), "fail", "a Sentry auth token"),
    (re.compile(r"\btskey-(?:api|auth|client)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}"), "fail", "a Tailscale key"),
    (re.compile(r"\bdckr_pat_[A-Za-z0-9_-]{27,}"), "fail", "a Docker Hub access token"),
    (re.compile(r"\bATATT3[A-Za-z0-9_=-]{100,}"), "fail", "an Atlassian API token"),
    (re.compile(r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"), "fail", "a Postman API key"),
    (re.compile(r"\bhv[sb]\.[A-Za-z0-9_-]{24,}"), "fail", "a HashiCorp Vault token"),
    (re.compile(r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}"), "fail", "a Terraform Cloud token"),
    (re.compile(r"\bops_eyJ[A-Za-z0-9+/=_-]{50,}"), "fail", "a 1Password service-account token"),
    (re.compile(r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"), "fail", "an age secret key"),
    (re.compile(r"\bsk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}"), "fail", "a Mapbox secret token"),
    (re.compile(r"\bAAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{140}"), "fail", "a Firebase Cloud Messaging server key"),
    (re.compile(r"\baccess_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}"), "fail", "a PayPal Braintree token"),
    (re.compile(r"\bFLWSECK(?:_TEST)?-[a-f0-9]{32}-X\b"), "fail", "a Flutterwave secret key"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"), "fail", "a JWT (a bearer token)"),
]
# Substrings one of which every format's match contains (lower case): most texts are ruled out at once.
NEEDLES = any_of(
    (
        *("akia", "asia", "abia", "acca", "gh", "gl", "xox", "xapp", "hooks.slack", "sk-", "aiza", "ya29", "gocspx"),
        *("_live_", "_test_", "whsec_", "hf_", "npm_", "pypi-", "rubygems_", "sg.", "key-", "xkeysib", "shp", "_v1_"),
        *("lin_api", "gsk_", "r8_", "pplx-", "xai-", "ntn_", "secret_", "figd_", "dapi", "sntry", "tskey-", "dckr_"),
        *("atatt3", "pmak-", "hvs.", "hvb.", "atlasv1", "ops_", "age-secret", "sk.eyj", "aaaa", "$production$"),
        *("flwseck", "eyj"),
    )
)

# A service's key named by its environment: `pg_live_9i8u7y6t5r4e3w2q`, `api_prod_8a7b6c5d4e3f2g1h`,
# `acme-production-…`; the body is judged random by the caller (`entropy.randomish`).
ENVIRONMENT_KEY = re.compile(
    r"(?<![A-Za-z0-9_-])(?P<prefix>[A-Za-z][A-Za-z0-9]{0,11}[_-](?P<env>live|prod|production|secret|private|priv"
    r"|dev|development|staging|stage|test|sandbox)[_-])(?P<body>[A-Za-z0-9]{12,128})(?![A-Za-z0-9_-])"
)
ENVIRONMENT_NEEDLES = any_of(("live", "prod", "secret", "priv", "test", "dev", "stag", "sandbox"))
