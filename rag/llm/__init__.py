"""Chat models: hosted (OpenAI, Groq, OpenAI-compatible servers) and local (llama.cpp), one interface."""

from rag.llm.base import ChatMessage, ChatModel, ChatResponse, LLMError
from rag.llm.factory import available_llms, detect_default_llm, make_chat_model
from rag.llm.local import LlamaCppChatModel
from rag.llm.openai_compat import OpenAIChatModel

__all__ = [
    "ChatMessage",
    "ChatModel",
    "ChatResponse",
    "LLMError",
    "LlamaCppChatModel",
    "OpenAIChatModel",
    "available_llms",
    "detect_default_llm",
    "make_chat_model",
]
