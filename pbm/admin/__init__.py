"""The admin web page (FastAPI router ``pbm.admin.routes.router``) and ``pbm admin`` CLI."""
