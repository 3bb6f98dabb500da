"""CloudFormation: templates, intrinsics, SAM, CDK assemblies."""
