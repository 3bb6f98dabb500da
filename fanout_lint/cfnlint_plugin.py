"""fanout-lint's CloudFormation rules as a cfn-lint plugin.

    pip install 'fanout-lint[cfn-lint]'
    cfn-lint template.yaml -a fanout_lint.cfnlint_plugin   # -a takes several values: template first

cfn-lint instantiates every rule class at the top level of this module. There is one
class per fanout-lint rule, written out (a test checks each rule has exactly one); its
cfn-lint ID is the rule's severity letter plus its ID (``EFL201``, ``WFL002``,
``IFL105``), so cfn-lint's levels, ``--ignore-checks``, ``Metadata: cfn-lint`` ignores and
exit codes apply. cfn-lint matches ``--ignore-checks`` against the start of the whole ID
(``EFL201``, ``EFL2``; a bare ``FL201`` names nothing). Info rules run with
``--include-checks I``. ``WFL000`` carries fanout-lint's suppression notices, and the
notice that its configuration file could not be used: the plugin reads
``.fanout-lint.toml`` (``cfnlint_adapter.configured``), so ``select``, ``ignore`` and
``per-file-ignores`` are written once for both. Only cfn-lint imports this module; the
fanout-lint command line never does.
"""

from __future__ import annotations

from fanout_lint.integrations import cfnlint_adapter as adapter  # a module, so cfn-lint sees no extra class


class FL000(adapter.NoticeRule):
    """fanout-lint suppression notices"""


class FL001(adapter.FanoutLintRule):
    """sns-to-lambda-direct"""

    fanout_id = "FL001"


class FL002(adapter.FanoutLintRule):
    """raw-delivery-off"""

    fanout_id = "FL002"


class FL003(adapter.FanoutLintRule):
    """single-subscriber-topic"""

    fanout_id = "FL003"


class FL004(adapter.FanoutLintRule):
    """fifo-mismatch"""

    fanout_id = "FL004"


class FL005(adapter.FanoutLintRule):
    """fifo-high-throughput-partial"""

    fanout_id = "FL005"


class FL006(adapter.FanoutLintRule):
    """filter-policy-rejected"""

    fanout_id = "FL006"


class FL007(adapter.FanoutLintRule):
    """filter-policy-never-matches"""

    fanout_id = "FL007"


class FL101(adapter.FanoutLintRule):
    """missing-dlq"""

    fanout_id = "FL101"


class FL102(adapter.FanoutLintRule):
    """dlq-only-on-subscription"""

    fanout_id = "FL102"


class FL103(adapter.FanoutLintRule):
    """dlq-retention-not-longer"""

    fanout_id = "FL103"


class FL104(adapter.FanoutLintRule):
    """max-receive-count-out-of-range"""

    fanout_id = "FL104"


class FL105(adapter.FanoutLintRule):
    """shared-dlq"""

    fanout_id = "FL105"


class FL106(adapter.FanoutLintRule):
    """dlq-without-alarm"""

    fanout_id = "FL106"


class FL201(adapter.FanoutLintRule):
    """shared-queue"""

    fanout_id = "FL201"


class FL202(adapter.FanoutLintRule):
    """visibility-timeout-below-function-timeout"""

    fanout_id = "FL202"


class FL203(adapter.FanoutLintRule):
    """visibility-timeout-headroom"""

    fanout_id = "FL203"


class FL204(adapter.FanoutLintRule):
    """batch-item-failures-off"""

    fanout_id = "FL204"


class FL205(adapter.FanoutLintRule):
    """mapping-concurrency-above-reserved"""

    fanout_id = "FL205"


class FL206(adapter.FanoutLintRule):
    """batching-settings-rejected"""

    fanout_id = "FL206"


class FL301(adapter.FanoutLintRule):
    """queue-policy-missing"""

    fanout_id = "FL301"


class FL302(adapter.FanoutLintRule):
    """queue-policy-without-source-arn"""

    fanout_id = "FL302"


class FL303(adapter.FanoutLintRule):
    """delivery-to-kms-managed-key"""

    fanout_id = "FL303"


class FL304(adapter.FanoutLintRule):
    """lambda-permission-missing"""

    fanout_id = "FL304"


# -- failure paths (keys and roles) --
class FL305(adapter.FanoutLintRule):
    """key-policy-denies-sender"""

    fanout_id = "FL305"


class FL306(adapter.FanoutLintRule):
    """consumer-cannot-decrypt"""

    fanout_id = "FL306"


class FL401(adapter.FanoutLintRule):
    """eventbridge-target-without-dlq"""

    fanout_id = "FL401"


class FL402(adapter.FanoutLintRule):
    """async-invoke-without-failure-destination"""

    fanout_id = "FL402"


class FL403(adapter.FanoutLintRule):
    """stream-mapping-without-failure-handling"""

    fanout_id = "FL403"


# -- failure paths (issue 28): streams and EventBridge -------------------------

class FL404(adapter.FanoutLintRule):
    """stream-retries-unbounded"""

    fanout_id = "FL404"


class FL406(adapter.FanoutLintRule):
    """eventbridge-target-role-missing"""

    fanout_id = "FL406"


# -- failure paths (loops) --
class FL405(adapter.FanoutLintRule):
    """recursive-delivery-loop"""

    fanout_id = "FL405"
