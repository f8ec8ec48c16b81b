"""The GitHub "platform" layer: API client, releases, contents, assets, package index, publishing.

Every module here talks to the network only through :mod:`bot.github.client`
(PyGithub and a requests session with timeouts and bounded retries), so the
same code runs against github.com, GitHub Enterprise and the local fake
server of the tests (``GITHUB_API_URL``).
"""
