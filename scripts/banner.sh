# The addresses and how to log in, printed by `make run` and `make run-cluster` before they start
# (sourced; the database is migrated by then).
base_url="$(.venv/bin/python -c 'from topic_dashboard.settings import get_settings as g; print(g().public_base_url.rstrip("/"))')"
setup_token="$(.venv/bin/topic-dashboard setup-token)"

echo
echo "  Topic Dashboard      $base_url/"
echo "  REST API (OpenAPI)   $base_url/api/openapi.json"
echo "  topic_mcp for bots   $base_url/api/mcp/topic"
echo "  ccweb MCP            $base_url/api/mcp/ccweb"
echo
case "$setup_token" in
  tdsetup_*)
    echo "  First start: open $base_url/login and create the first admin with this one-time setup token:"
    echo "      $setup_token"
    echo "  (or run: .venv/bin/topic-dashboard user create --admin)";;
  *)
    echo "  Log in with your account. More accounts: .venv/bin/topic-dashboard user create [--admin]";;
esac
echo
