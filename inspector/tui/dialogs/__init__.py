"""Modal screens: consent, calling a tool, and answering the server (elicitation, sampling, roots).

They only collect the reviewer's decision and return it with `dismiss`; the app owns the connection.
Everything shown from the server goes through `visible()` inside `rich.text.Text`.
One module per dialog; `form` is the schema-generated form they share, `common` their CSS and schema checks,
`base` their keys (a `Dialog`: Escape closes it keeping what was typed, Enter or ctrl+s submits, its own footer).
"""

from mcp_review.tui.dialogs.answer import DECLINE_ALL, AnswerScreen
from mcp_review.tui.dialogs.app_page import AppPageScreen, app_page
from mcp_review.tui.dialogs.auth import AuthScreen
from mcp_review.tui.dialogs.call import CallScreen
from mcp_review.tui.dialogs.confirm import ConfirmScreen
from mcp_review.tui.dialogs.connect import ConnectScreen, ask_target, remember_target
from mcp_review.tui.dialogs.decision import DecisionScreen
from mcp_review.tui.dialogs.elicitation import ElicitScreen
from mcp_review.tui.dialogs.export import ExportScreen
from mcp_review.tui.dialogs.fill import FillScreen, PromptScreen, TemplateScreen, prompt_text, resource_text
from mcp_review.tui.dialogs.form import SchemaForm
from mcp_review.tui.dialogs.pin import PinScreen
from mcp_review.tui.dialogs.result import ResultScreen, ToolScreen, result_text
from mcp_review.tui.dialogs.roots import RootsScreen
from mcp_review.tui.dialogs.run import RunScreen
from mcp_review.tui.dialogs.sampling import SampleScreen

__all__ = [
    "DECLINE_ALL",
    "AnswerScreen",
    "AppPageScreen",
    "AuthScreen",
    "CallScreen",
    "ConfirmScreen",
    "ConnectScreen",
    "DecisionScreen",
    "ElicitScreen",
    "ExportScreen",
    "FillScreen",
    "PinScreen",
    "PromptScreen",
    "ResultScreen",
    "RootsScreen",
    "RunScreen",
    "SampleScreen",
    "SchemaForm",
    "TemplateScreen",
    "ToolScreen",
    "app_page",
    "ask_target",
    "prompt_text",
    "remember_target",
    "resource_text",
    "result_text",
]
