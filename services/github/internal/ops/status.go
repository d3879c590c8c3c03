package ops

import (
	"errors"

	"github.com/google/go-github/v66/github"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func statusCode(err error) codes.Code { return status.Code(err) }

func asErrorResponse(err error, target **github.ErrorResponse) bool { return errors.As(err, target) }
