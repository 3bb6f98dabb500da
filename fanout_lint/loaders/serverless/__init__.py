"""The Serverless Framework: serverless.yml, its variables, files and events."""
