"""The formats fanout-lint reads, named once.

A unit (``Unit.format``) is a CloudFormation template (SAM and CDK output included), a
Serverless Framework service, a Terraform directory or a Terraform plan. A node's
``Written.format`` says whose names its settings have: CloudFormation's for a Serverless
service's resources too, Terraform's for a plan's (``vocabulary``). Discovery gives a
``Candidate.format`` from what it sees: TERRAFORM for a directory, CLOUDFORMATION for a
file until its loader tells a plan or a service by the parsed top level.

The values are the strings the reports print (``graph --format json`` names a unit's
format), so a member is also that string. Code branches on a format with an exhaustive
``match`` ending in ``unknown``: a format no branch names is an error for the type
checker, never silently another one.
"""

from __future__ import annotations

import enum
from typing import NoReturn


class Format(str, enum.Enum):
    CLOUDFORMATION = "cloudformation"
    SERVERLESS = "serverless"
    TERRAFORM = "terraform"
    TERRAFORM_PLAN = "terraform-plan"

    def __str__(self) -> str:
        return self.value  # as in messages: "terraform", not "Format.TERRAFORM"

    @property
    def vocabulary(self) -> Format:
        """The format whose names a resource of this one has for its settings:
        CLOUDFORMATION (property paths) or TERRAFORM (arguments)."""
        match self:
            case Format.CLOUDFORMATION | Format.SERVERLESS:
                return Format.CLOUDFORMATION
            case Format.TERRAFORM | Format.TERRAFORM_PLAN:
                return Format.TERRAFORM
            case _:
                unknown(self)


def unknown(value: NoReturn) -> NoReturn:
    """The end of an exhaustive ``match`` on a ``Format``: the type checker proves it is
    never reached, and a value that is no member (a plain string) fails here."""
    raise TypeError(f"not a format: {value!r}")
